"""Negative tasks: an answer that names a Megatron CUDA-graph knob only to dismiss it ("has nothing to
do with `cuda_graph_impl`", "X or Y don't apply", "skip X") stays clear of it; one that offers the
knob, even as a later option, recommends it."""

from __future__ import annotations

import pytest

from one_answer import checks_of, score_one

BASE = "Set `gradient_checkpointing=True` and `bf16=True` in `TrainingArguments`. "

DISMISSED = [
    "This has nothing to do with Megatron's `cuda_graph_impl`.",
    "Megatron knobs like cuda_graph_impl or te_rng_tracker don't apply to the HF Trainer.",
    "Skip `cuda_graph_impl` entirely: that is a Megatron setting.",
    "CUDA graphs are not relevant here, so leave cuda_graph_impl and friends alone.",
    "Megatron's `cuda_graph_scope` is irrelevant for a memory problem.",
]
OFFERED = [
    "If you later move to Megatron you could enable cuda_graph_impl=transformer_engine for more speed.",
    "Also set cuda_graph_impl=transformer_engine to cut launch overhead.",
    "Megatron's `cuda_graph_impl` does not apply to HF, but `cuda_graph_scope=attn` still helps.",
]


@pytest.mark.parametrize("tail", DISMISSED)
def test_a_knob_named_only_to_dismiss_it_is_not_advice(tail):
    row = score_one("neg-hf-gradient-checkpointing", BASE + tail)
    (check,) = checks_of(row, "concept_absent")
    assert check["passed"], check
    assert row["passed"], row


@pytest.mark.parametrize("tail", OFFERED)
def test_a_knob_offered_is_advice(tail):
    row = score_one("neg-hf-gradient-checkpointing", BASE + tail)
    (check,) = checks_of(row, "concept_absent")
    assert not check["passed"], check
    assert not row["passed"], row
