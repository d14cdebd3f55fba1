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


def test_a_knob_at_the_value_that_keeps_graphs_off_is_no_graph_advice():
    row = score_one("neg-megatron-tp-sizing",
                    "Use TP=4 inside a node, PP=4 with VPP=5, CP=2 at 8K and DP=2 with the distributed optimizer:\n\n"
                    "```python\ncfg.model.tensor_model_parallel_size = 4\ncfg.model.pipeline_model_parallel_size = 4\n"
                    "cfg.model.context_parallel_size = 2\ncfg.model.cuda_graph_impl = \"none\"\n```\n\n"
                    "I left the recipe's CUDA-graph settings alone (it ships `cuda_graph_impl = \"none\"`).")
    assert checks_of(row, "no_graph_config")[0]["passed"]
    assert checks_of(row, "concept_absent")[0]["passed"]


def test_a_knob_named_in_prose_that_is_not_english_is_left_to_a_judge():
    answer = ("Đặt `BLOCK_SIZE = triton.next_power_of_2(n_cols)` để mỗi chương trình xử lý trọn một hàng, chọn "
              "`num_warps` theo kích thước khối (4 cho khối nhỏ, 8 hoặc 16 cho khối lớn) và dùng `triton.autotune` "
              "với key `n_cols` để thử nhiều cấu hình; sau đó đo thời gian bằng `triton.testing.do_bench` và so sánh "
              "với bản PyTorch.\n\nLưu ý: câu hỏi này thuần là tuning kernel Triton, các thiết lập CUDA graph của "
              "Megatron (`cuda_graph_impl`, TE RNG tracker…) không liên quan và bạn không cần chúng ở đây.")
    (check,) = checks_of(score_one("neg-triton-kernel", answer), "concept_absent")
    assert check["score"] == 0.5 and "judge" in check["explanation"]
    written = answer + "\n\n```python\ncfg.model.cuda_graph_impl = \"transformer_engine\"\n```"
    assert not checks_of(score_one("neg-triton-kernel", written), "concept_absent")[0]["passed"]
