"""Readings of offered options and of sentences that only describe: an option's prose line with the
block under it, the case an option in plain prose is offered for, a consequence held against a
choice, an explanation's title over a whole-file block, an era written "0.18 and later", Bridge's
helper called with a list built from names, a warning about capturing on the first step, and a
negation that a colon closes. The answers are written for these tests."""

from __future__ import annotations

import pytest

from skill_tools.evaluation.bridge_helpers import helper_blocks
from skill_tools.evaluation.extract import extract_config
from skill_tools.evaluation.fragments import Block
from skill_tools.evaluation.polarity import DESCRIBED, intro_polarity

from one_answer import assert_claimed, assert_passes, score_one

F = "```"
_TE_ROUTER = ('cfg.model.cuda_graph_impl = "transformer_engine"\ncfg.model.cuda_graph_scope = None\n'
              'cfg.model.cuda_graph_modules = ["attn", "moe_router", "moe_preprocess"]\n'
              "cfg.model.use_te_rng_tracker = True\ncfg.rng.te_rng_tracker = True\n")


def _fatal(task: str, answer: str) -> list[str]:
    return score_one(task, answer)["fatal"]


def test_an_options_prose_line_and_the_block_under_it_are_one_option():
    answer = ("Two ways out.\n\n1) Graph the router and recompute less:\n\n"
              + "".join("    " + ln + "\n" for ln in ('cfg.model.recompute_modules = ["moe_act"]\n' + _TE_ROUTER).splitlines())
              + "\n2) Keep recompute_modules=[\"moe\", \"layernorm\"] and stop graphing the router:\n\n"
              "    cfg.model.cuda_graph_modules = [\"attn\"]\n\n"
              "Compare iterations after the capture step against eager.\n")
    alts = extract_config(answer).select("current").alternatives
    assert len(alts) == 1 and alts[0].get("model.recompute_modules") == ["moe", "layernorm"] \
        and alts[0].get("model.cuda_graph_modules") == ["attn"]
    assert not any("options" in f for f in _fatal("moe-recompute-router-conflict", answer))


def test_the_loss_and_grad_nan_checks_named_together_are_both_checks():
    text = "Use `cuda_graph_impl=\"full_iteration\"` with the loss/grad NaN checks turned off.\n"
    cfg = extract_config(text).select("current").config
    assert cfg.get("rerun_state_machine.check_for_nan_in_loss") is False
    assert cfg.get("ddp.check_for_nan_in_grad") is False


def test_an_option_in_plain_prose_for_drop_and_pad_is_judged_with_that_case():
    fixed = ("Fixed config:\n\nmodel:\n  cuda_graph_impl: transformer_engine\n  cuda_graph_scope: null\n"
             "  cuda_graph_modules: [moe_router, moe_preprocess]\n  use_te_rng_tracker: true\nrng:\n  te_rng_tracker: true\n\n")
    other = "If your MoE is actually drop-and-pad (capacity factor + pad to capacity), cuda_graph_modules: [moe] is the alternative.\n"
    assert not any("options" in f for f in _fatal("run-helper-validate", fixed + other))
    plain = "cuda_graph_modules: [moe] is the alternative.\n"
    assert any("options" in f for f in _fatal("run-helper-validate", fixed + plain))  # no case: judged on the dropless model


def test_what_a_rejected_choice_would_force_is_a_consequence_not_advice():
    said = ("Don't switch to `cuda_graph_impl=full_iteration`: the dropless dispatch syncs to the host, "
            "and it would also force the NaN checks off.\n")
    roles = {b.role for b in extract_config(said).blocks if b.cfg is not None and b.cfg.has("ddp.check_for_nan_in_grad")}
    assert roles == {DESCRIBED}
    asked = "Turn the NaN checks off.\n"
    assert extract_config(asked).select(None).config.get("ddp.check_for_nan_in_grad") is False


def test_a_why_title_over_a_whole_file_block_is_no_verdict_on_its_settings():
    answer = ("# Why it fails\n# ------------\n# Both keys are 0.18+ API; 0.17 has neither.\n\n"
              "# --- megatron-core 0.17 spelling ---\n"
              'cfg.model.cuda_graph_impl = "local"\ncfg.model.cuda_graph_scope = ["full_iteration"]\n'
              "cfg.model.use_te_rng_tracker = True\ncfg.rng.te_rng_tracker = True\n"
              "cfg.rerun_state_machine.check_for_nan_in_loss = False\ncfg.ddp.check_for_nan_in_grad = False\n")
    ex = extract_config(answer).select("legacy")
    assert ex.config.get("model.cuda_graph_scope") == ["full_iteration"]
    assert ex.counter_config.values == {}
    broken = answer.replace("# Why it fails\n# ------------\n", "# WRONG, this fails:\n")
    assert extract_config(broken).select("legacy").config.values == {}


def test_and_later_names_an_era_and_later_alone_names_a_later_option():
    assert intro_polarity("megatron-core 0.18 and later:").role == "suggested"
    assert intro_polarity("megatron-core 0.18 or later:").role == "suggested"
    assert intro_polarity("Later, once this is stable:").role == "alternative"


def _helper(code: str) -> dict[str, object]:
    block = Block("python", code, 1, "unfenced", "suggested")
    return {b.era: b.text for b in helper_blocks(block)}


def test_the_helpers_module_list_is_read_through_names_a_flag_default_and_plus():
    code = ('from megatron.bridge.utils.cuda_graph import set_cuda_graph_modules\n'
            'BASE = ["moe_router", "moe_preprocess"]\n\n'
            'def enable(cfg, with_attn: bool = False):\n'
            '    modules = (["attn"] if with_attn else []) + BASE\n'
            '    set_cuda_graph_modules(cfg.model, modules)\n')
    assert _helper(code)["current"] == "model.cuda_graph_modules=[moe_router,moe_preprocess]\nmodel.cuda_graph_scope=null"
    assert _helper(code.replace("with_attn: bool = False", "with_attn: bool = True"))["legacy"] == \
        "model.cuda_graph_scope=[attn,moe_router,moe_preprocess]"
    assert _helper(code.replace("with_attn: bool = False", "with_attn"))  == {}  # a flag without a default: unknown


def test_capturing_on_the_first_step_would_is_a_warning_and_is_is_a_window():
    base = ("Run `skill-tools bench --config cfg.yaml` and read the median speed-up of iterations after the capture step.\n\n")
    warning = "Keep the warmup at 1 or more. Capturing on the very first step would record one-time initialisation.\n"
    claim = "Capture happens on the very first step, so drop it and average the rest.\n"
    assert not any("timing_window" in f for f in _fatal("run-helper-bench", base + warning))
    assert any("timing_window" in f for f in _fatal("run-helper-bench", base + claim))


_PP = ("With PP>1 the TE helper captures one graph per layer per microbatch, each with static buffers, so keep "
       "headroom: graphs are a throughput optimization, not a fit technique.\n\n")


def test_a_stated_negation_before_a_colon_does_not_reach_the_claim_after_it():
    assert_claimed("pp-memory-oom", _PP + "That's why GBS isn't the knob here: dropping GBS to 64 doesn't change "
                   "how many graphs get captured.\n")
    assert_passes("pp-memory-oom", _PP + "Don't rely on eager numbers here: dropping GBS to 64 cuts the graph "
                  "count, since the number of microbatches scales graph memory; fewer microbatches is the lever.\n")


def test_a_prohibition_before_a_colon_reaches_the_reasons_after_it():
    bf16 = ("Use `bf16=True` on Ampere or newer and `fp16=True` on a V100. (Don't go by `is_bf16_supported()` alone: "
            "it can report True on older cards because bf16 tensors can be emulated, which is slow.)\n\n"
            "```python\nargs = TrainingArguments(output_dir='out', bf16=True, gradient_checkpointing=True)\n```\n")
    assert not any("pre-Ampere" in f for f in score_one("neg-hf-gradient-checkpointing", bf16)["fatal"])


@pytest.mark.parametrize("claim", [
    "Read the algbw column at large sizes and compare it with what your NICs can move per GPU.\n",
    "Ignore busbw here: it's a normalized figure and it overstates what the wire carries.\n",
])
def test_algbw_against_the_nics_or_busbw_called_overstated_fails(claim):
    base = ("Run nccl-tests' all_reduce_perf across both nodes with NCCL_DEBUG=INFO and check that NET/IB and "
            "GDRDMA show up.\n\n")
    assert_claimed("neg-nccl-bandwidth", base + claim)


def test_that_one_after_a_quoted_error_heading_takes_the_error_up():
    claim = ("**2. `--rl-persist-cuda-graphs is set but no CUDA graphs are being built.`**\n\n"
             "That one comes from the KV-cache handling: with offload the cache moves, so persisting is refused.\n")
    assert_claimed("rl-colocated-eager-decode", claim)


_DRIFT = ("Compare the graphed run against eager with the same capturable optimizer "
          "(skill-tools bench --variants eager+capturable-adam,full_iteration+optimizer); only a gap between those "
          "two is a replay bug worth reporting.\n\n")


def test_capturable_adam_said_to_keep_default_adams_numerics_fails_and_its_own_drift_passes():
    assert_claimed("optimizer-graph-loss-drift", _DRIFT + "`capturable=True` only moves bookkeeping onto the device; "
                   "it is the same fused Adam math, so it isn't a source of drift.\n")
    assert_passes("optimizer-graph-loss-drift", _DRIFT + "`capturable=True` rounds differently from default Adam, so "
                  "capturable Adam drifts from default-Adam eager even with no graph.\n")


def test_i_e_ends_no_clause_of_a_claim():
    base = ("For Qwen3.5 use `cuda_graph_impl: transformer_engine` with `cuda_graph_modules: [attn, mlp]`, "
            "`use_te_rng_tracker: true` and `rng.te_rng_tracker: true`.\n\n")
    assert_claimed("gdn-mamba-scope", base + "Gated DeltaNet is a linear-recurrence mixer, i.e. the same family as "
                   "Mamba2, and it is graphed by the mamba scope.\n")


def test_an_empty_module_list_said_to_match_no_branch_fails():
    fix = ("Fix: upgrade Megatron-LM so the hybrid layers are discovered, then check 'Rank N: K graphable layers' "
           "with K > 0.\n\n")
    assert_claimed("diagnose-log-no-graphable-layers", fix + "With an empty list none of those branches can match, "
                   "so every layer comes back not graphable.\n")


def _eras(text: str) -> dict[str, object]:
    return {k: b.era for b in extract_config(text).blocks if b.cfg is not None for k in b.cfg.values}


def test_settings_in_single_quotes_are_read_like_code_spans():
    cfg = extract_config("If you see stalls, set 'NCCL_IB_DISABLE=1' and 'cuda_graph_impl: none'.\n").select(None).config
    assert cfg.env.get("NCCL_IB_DISABLE") == "1" and cfg.get("model.cuda_graph_impl") == "none"
    assert extract_config("print('x')\nit's 'model.x=1' isn't\n").select(None).config.get("model.x") in (None, 1)


def test_each_bare_or_quoted_setting_takes_the_era_written_after_it():
    text = ("That's the case where local is right: 'cuda_graph_impl=local' + 'cuda_graph_scope=[full_iteration]' on "
            "0.16-0.17, or 'cuda_graph_impl=full_iteration' on 0.18+.\n")
    assert [b.era for b in extract_config(text).blocks] == ["legacy", "legacy", "current"]
    chain = ('Enable TE graphs: cuda_graph_impl="transformer_engine", cuda_graph_modules=["attn"] on 0.18+ or '
             'cuda_graph_scope=["attn"] on 0.16-0.17, cuda_graph_warmup_steps=3, and rng.te_rng_tracker = True.\n')
    eras = _eras(chain)
    assert eras["model.cuda_graph_modules"] == "current" and eras["model.cuda_graph_scope"] == "legacy"
    assert eras["rng.te_rng_tracker"] is None and eras["model.cuda_graph_warmup_steps"] is None


def test_a_single_quoted_key_switched_to_a_value_is_read():
    text = "If local graphs still don't capture, switch 'mcore_generation_config.cuda_graph_impl' to 'transformer_engine'.\n"
    assert [b.cfg.get("mcore_generation_config.cuda_graph_impl") for b in extract_config(text).blocks if b.cfg] == \
        ["transformer_engine"]


def test_a_plain_title_alone_between_blank_lines_names_its_sections_era():
    text = ("Tab: megatron-core 0.16.x (what you run)\n\n```python\ncfg.model.cuda_graph_impl = \"local\"\n"
            "cfg.model.cuda_graph_scope = [\"full_iteration\"]\n```\n\n"
            "Tab: megatron-core 0.18+ (only once you upgrade, not on 0.16.1)\n\n```python\n"
            "cfg.model.cuda_graph_impl = \"full_iteration\"\ncfg.model.cuda_graph_modules = []\n```\n")
    assert [b.era for b in extract_config(text).blocks] == ["legacy", "current"]
    intro = ("You tried this from a newer example:\n\nThe lines for your pinned version are below.\n\n"
             "```python\ncfg.model.cuda_graph_scope = [\"attn\"]\n```\n")
    assert [b.era for b in extract_config(intro).blocks] == [None]  # an intro ending in ':' is no title


def test_a_sentence_wrapped_over_three_lines_is_read_whole_but_code_lines_do_not_chain():
    wrapped = ("The `moe` scope is only for\n**drop-and-pad** MoE (capacity factor +\n"
               "`moe_pad_expert_input_to_capacity=True`), and megatron-core\nasserts that.\n")
    assert [b.role for b in extract_config(wrapped).blocks if b.cfg is not None] == [DESCRIBED]
    ladder = ("  step 1:\n    cfg.model.cuda_graph_modules = [\"moe_router\"]   # mcore >= 0.18\n"
              "    #   on mcore 0.16/0.17 the same list goes in cfg.model.cuda_graph_scope\n"
              "    cfg.model.cuda_graph_warmup_steps = 3\n    cfg.model.use_te_rng_tracker = True\n    cfg.rng.te_rng_tracker = True\n")
    assert _eras(ladder)["rng.te_rng_tracker"] is None


def test_an_untagged_fence_of_python_calls_reads_as_python():
    text = "Fix:\n\n```\nmodel = torch.compile(model, dynamic=False)\n```\n"
    assert [b.kind for b in extract_config(text).blocks] == ["python"]
    assert [b.kind for b in extract_config("```\nVAR=$(nproc) torchrun train.py\n```\n").blocks] != ["python"]
