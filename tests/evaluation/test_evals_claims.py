"""Wrong claims in prose (rubric ``claim_absent``): a clause that binds a subject to the wrong
object fails the answer; a negated clause, a rival bound nearer, or a word inside an identifier does
not. Answers written for these tests, through the whole scorer and the task set's own checks."""

from __future__ import annotations

import pytest
from one_answer import checks_of, score_one

GDN_REST = ("\n\nNemotron-H has real Mamba layers: use `mamba` there (plus `attn`/`mlp`). The NVFP4 illegal memory access "
            "with the mamba scope is TE#3316: drop mamba from the scope or train in MXFP8. Confirm replay and compare "
            "post-capture steps with eager.\n")


def _claim(row: dict, name: str) -> dict:
    (check,) = [c for c in checks_of(row, "claim_absent") if c["name"] == name]
    return check


@pytest.mark.parametrize("claim", [
    "Qwen3.5's Gated DeltaNet layers are recurrent mixers, so they go under `mamba`.",
    "For Qwen3.5 the GDN layers belong in the `mamba` scope, the softmax attention in `attn`.",
    "Use `mamba` for the GDN layers.",
])
def test_a_clause_that_binds_gdn_to_mamba_fails(claim):
    row = score_one("gdn-mamba-scope", claim + GDN_REST)
    check = _claim(row, "GDN under mamba")
    assert check["score"] == 0.0 and check["fatal"] and not row["passed"]
    assert "binds" in check["explanation"] and check["evidence"]


@pytest.mark.parametrize("right", [
    "Qwen3.5 builds GDN as the self_attention submodule, so it is captured by `attn`.",
    "`mamba` is for Nemotron-H, while GDN goes under `attn`.",
    "GDN is not a Mamba layer: graph it with `attn`; `mamba` would match nothing in Qwen3.5.",
    "GDN lives in the attention slot (`attn`, not `mamba`).",
    "Graph `mamba` on Nemotron-H; GDN takes `attn`.",
])
def test_gdn_bound_to_attn_or_a_negated_mamba_is_no_claim(right):
    row = score_one("gdn-mamba-scope", right + GDN_REST)
    check = _claim(row, "GDN under mamba")
    assert check["score"] is None and "not applicable" in check["explanation"]
    assert row["passed"], row["fatal"]


DECODE = ("Use `cuda_graph_impl: local` with `inference_cuda_graph_scope: block` (or `layer`) on megatron-core 0.19; "
          "keep the same inference_mode for capture and replay, static MoE shapes, and on 0.17 write "
          "`cuda_graph_scope: [full_iteration_inference]` instead.\n\n")


@pytest.mark.parametrize("claim", [
    "Later you can switch decode to TE graphs for more speed.",
    "For generation, cuda_graph_impl: transformer_engine is faster than the local manager.",
    "Next, move to `cuda_graph_impl=\"full_iteration\"`, which captures the whole decode iteration in one graph.",
    # the object stated before the subject it is claimed for
    "* `transformer_engine` graphs: equally fine for decode, with the layer scope.",
    "`transformer_engine` grafe lahko uporabiš tudi za decode.",
])
def test_te_graphs_claimed_for_decode_fail(claim):
    row = score_one("inference-decode-graphs", DECODE + claim + "\n")
    assert _claim(row, "TE or full-iteration graphs for decode")["score"] == 0.0 and not row["passed"]


@pytest.mark.parametrize("right", [
    "`transformer_engine` graphs can't be used for decode: with `transformer_engine` (and `full_iteration`) the "
    "only allowed inference scope is `none`, and megatron-core rejects anything else.",
    "The 0.17 value full_iteration_inference is what decode used before the new key.",
    "`transformer_engine` **não** serve para decode.",
    "TE-graphs zijn dus niet bruikbaar voor decode.",
    "Training keeps TE graphs; decode uses local.",
    "`transformer_engine` stays for training, and local graphs for decode.",
    "`transformer_engine` allows only scope none, so for decode use local.",
    # a question (also in bold, as a heading) asks; the fenced error it quotes is no setting
    "**Q2: can I use `transformer_engine` graphs for decode?**\n\nYou get\n\n```\nInvalid inference CUDA graph "
    "scope 'block' for cuda_graph_impl='transformer_engine'.\n```\n\nInference graphs are MCore's manager, `local`.",
])
def test_te_graphs_ruled_out_for_decode_are_no_claim(right):
    row = score_one("inference-decode-graphs", DECODE + right + "\n")
    assert _claim(row, "TE or full-iteration graphs for decode")["score"] is None
    assert row["passed"], row["fatal"]


def test_a_guard_earns_nothing_when_the_mistake_is_absent():
    """A claim check that finds nothing is not scored: it cannot lift a weak answer over the threshold."""
    weak = score_one("gdn-mamba-scope", "Use attn.")
    assert _claim(weak, "GDN under mamba")["score"] is None
    assert weak["score"] == score_one("gdn-mamba-scope", "Use attn.")["score"]
    assert all(c["score"] != 1.0 for c in checks_of(weak, "claim_absent"))


@pytest.mark.parametrize("task,claim,text", [
    # a conditional imperative ("Drop the padding and the config is refused") states the rule: what comes
    # before the subject is not its predicate
    ("moe-drop-pad-moe-scope", "padding to capacity optional",
     "Yes: with drop-and-pad the moe scope is allowed. Use `cuda_graph_impl=\"transformer_engine\"`, "
     "`cuda_graph_modules=[\"attn\", \"moe\"]`, never with moe_router, and the TE RNG tracker "
     "(`model.use_te_rng_tracker=True`, `rng.te_rng_tracker=True`). Both drop-and-pad settings are required. Drop the "
     "padding (or the capacity factor) and the config is refused: \"moe cuda graph is only supported with drop-padding MoE.\""),
    # a table cell is a clause: the next cell's "params" is not what ZeRO-2 shards
    ("neg-deepspeed-zero", "ZeRO-2 partitions the parameters",
     "| stage | shards | memory per GPU |\n|---|---|---|\n| ZeRO-2 + `offload_optimizer` to CPU | ~14 GB params + ~3.5 GB grads |\n"
     "| ZeRO-3 (params sharded too) | 28 GB |\n\nUse ZeRO-3: zero_optimization.stage=3, overlap_comm, "
     "contiguous_gradients, bf16.enabled in ds_config.json."),
])
def test_statements_of_the_rule_are_no_claim(task, claim, text):
    row = score_one(task, text)
    assert _claim(row, claim)["score"] is None and row["passed"], row["fatal"]


def test_the_off_topic_question_answered_wrongly_fails():
    zero = score_one("neg-deepspeed-zero", "Pick ZeRO-2: ZeRO-2 already partitions the parameters, gradients and "
                                           "optimizer states; stage 3 only adds offload. Set zero_optimization.stage=2.")
    assert not zero["passed"]
    right = score_one("neg-deepspeed-zero", "ZeRO-2 shards optimizer states and gradients; ZeRO-3 also shards the "
                                            "parameters. For 7B on 4x40GB use stage 3 (zero_optimization.stage=3), "
                                            "overlap_comm, contiguous_gradients and bf16.enabled in ds_config.json.")
    assert right["passed"], right["fatal"]
