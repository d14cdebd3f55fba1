"""Readings of settings and claims that name a case, not a recommendation: the setting a failure
happens with ("is refused if you set `x=True`"), a rule's only exemption, an option's case stated on
the line before it, a table row that runs the subject eagerly, and a shell line ended by ';'. The
answers are written for these tests, in styles of their own."""

from __future__ import annotations

from skill_tools.cli import refusal
from skill_tools.evaluation.extract import extract_config
from skill_tools.evaluation.tool_commands import check_tool_commands, invocations

from one_answer import checks_of, score_one

F = "```"


def _roles(text: str, key: str) -> list[str]:
    return [b.role for b in extract_config(text).blocks if b.cfg is not None and b.cfg.has(key)]


def test_a_setting_a_failure_happens_with_is_described_not_asked_for():
    text = ("With the alltoall dispatcher `moe_preprocess` is refused if you set "
            "`moe_router_padding_for_fp8=True` (host syncs in preprocess).")
    assert _roles(text, "model.moe_router_padding_for_fp8") == ["described"]
    text = "Capture breaks when `moe_pad_expert_input_to_capacity=False` on this dispatcher."
    assert _roles(text, "model.moe_pad_expert_input_to_capacity") == ["described"]


def test_a_failure_that_follows_from_leaving_a_setting_out_still_asks_for_it():
    text = "The provider asserts if you don't set `use_te_rng_tracker=True`, so set it."
    assert _roles(text, "model.use_te_rng_tracker") != ["described"]
    # a comma ends the case: what follows it is the advice
    text = "Capture fails when the NaN check runs inside the graph, so set `check_for_nan_in_loss_and_grad=False`."
    assert "described" not in _roles(text, "model.check_for_nan_in_loss_and_grad") + \
        _roles(text, "rerun_state_machine.check_for_nan_in_loss")


def test_a_rules_only_exemption_is_described():
    text = 'On 0.18+ the only exemption is `cuda_graph_impl="full_iteration"`; local and TE still raise.'
    assert _roles(text, "model.cuda_graph_impl") == ["described"]


CASE_ON_THE_LINE_BEFORE = f"""Fixed block:

{F}yaml
model:
  cuda_graph_impl: transformer_engine
  cuda_graph_scope: null
  cuda_graph_modules: [moe_router, moe_preprocess]
  use_te_rng_tracker: true
rng:
  te_rng_tracker: true
{F}

If your MoE is in fact drop-and-pad (capacity factor set and `moe_pad_expert_input_to_capacity: true`),
`cuda_graph_modules: [moe]` alone is the other legal option.
"""


def test_an_options_case_stated_on_the_line_before_is_its_premise():
    row = score_one("run-helper-validate", CASE_ON_THE_LINE_BEFORE)
    (options,) = [c for c in checks_of(row, "options")] or [None]
    assert options is None or options["score"] == 1.0, options
    ex = extract_config(CASE_ON_THE_LINE_BEFORE, era="current")
    (alt,) = ex.alternatives
    assert alt.get("model.cuda_graph_modules") == ["moe"] and alt.get("model.moe_expert_capacity_factor") == 1.0


EAGER_ROWS = """Decode graphs come from MCore's local graph manager.

| `cuda_graph_impl` | allowed `inference_cuda_graph_scope` | what you get at decode |
|---|---|---|
| `"local"` | `"layer"` or `"block"` | one graph per layer (or per block) per batch bucket |
| `"transformer_engine"` | `"none"` only | eager decode |
| `"full_iteration"` | `"none"` only | eager decode (a training-iteration graph) |

Set `cuda_graph_impl="local"`, `inference_cuda_graph_scope="block"` and `num_cuda_graphs=16`.
"""


def test_a_row_that_runs_the_subject_eagerly_claims_no_graphs_for_it():
    row = score_one("inference-decode-graphs", EAGER_ROWS)
    assert all(c["score"] != 0.0 for c in checks_of(row, "claim_absent")), row["fatal"]
    graphed = EAGER_ROWS.replace("| eager decode |", "| graphs decode |")
    row = score_one("inference-decode-graphs", graphed)
    assert any(c["score"] == 0.0 for c in checks_of(row, "claim_absent")), row["fatal"]


def test_a_shell_line_ends_at_a_semicolon_with_or_without_a_space():
    for sep in ("; ", " ; "):
        text = f"{F}console\n$ skill-tools validate --mcore-version 0.19.2 fixed.yaml{sep}echo \"exit=$?\"\n{F}\n"
        assert [argv for argv, _ in invocations(text)] == [["validate", "--mcore-version", "0.19.2", "fixed.yaml"]]
        assert check_tool_commands(text, refusal).passed


VARIANT_TABLE = f"""Recommendation: TE graphs of the router and the preprocessing.

{F}bash
skill-tools apply cfg.yaml --impl transformer_engine --scope moe_router,moe_preprocess --out cfg.graphs.yaml
{F}

Variants to A/B later:

| Variant | `{{flag}}` | When |
|---|---|---|
| wider | `attn,moe_router,moe_preprocess` | the next step |
| lighter | `{{lighter}}` | if graph memory is tight |
"""


def test_a_column_headed_by_a_graph_option_offers_each_row_as_a_value():
    for flag in ("--scope", "--cuda-graph-modules"):
        bad = VARIANT_TABLE.format(flag=flag, lighter="moe_preprocess")  # moe_preprocess needs moe_router
        row = score_one("run-helper-recommend", bad)
        assert not row["passed"] and any("moe_preprocess" in f for f in row["fatal"]), (flag, row["fatal"])
        good = VARIANT_TABLE.format(flag=flag, lighter="moe_router")
        assert score_one("run-helper-recommend", good)["passed"], flag


def test_advice_reported_from_others_is_described_not_given():
    text = ("You'll see older guides telling you to add `--no-check-for-nan-in-loss-and-grad`. It isn't "
            "needed here.")
    assert _roles(text, "rerun_state_machine.check_for_nan_in_loss") == ["described"]
    assert _roles("Add `--no-check-for-nan-in-loss-and-grad` to the launch.",
                  "rerun_state_machine.check_for_nan_in_loss") == ["suggested"]


def test_those_takes_up_the_subjects_of_the_sentence_before():
    from one_answer import assert_claimed

    answer = ("Graphed and same-shape eager decode should agree token for token. You may see differences "
              "at the very first generated token, or between two repeated runs of the same graphed "
              "configuration. Those are rounding and can be ignored.")
    assert_claimed("inference-parity-padded-shapes", answer)


def test_a_contrast_after_a_longer_noun_phrase_still_affirms_the_object():
    from one_answer import assert_claimed

    answer = ("So the ceiling you should expect for a 2-node all-reduce busbw is about half of the aggregate "
              "NIC bandwidth per node, not the full line rate.")
    assert_claimed("neg-nccl-bandwidth", answer)


COMMENTED_VARIANT = """# overrides.yaml: full-iteration graph with the distributed optimizer
model:
  cuda_graph_impl: full_iteration
ddp:
  overlap_param_gather: true        # fine: launched and awaited inside the forward

# ---------------------------------------------------------------------------
# Megatron-FSDP variant (the wait_bucket_ready capture failure):
# same class of bug, the FSDP parameter prefetch is not graph-safe by default.
#
# ddp:
#   use_megatron_fsdp: true
#   megatron_fsdp_cuda_graph_mode: true
#   # Keep this one as it is: it launches the first bucket's all-gather early.
#   fsdp_all_gather_in_start_param_sync: {value}
# ---------------------------------------------------------------------------
"""


def test_a_commented_variant_under_a_label_and_its_explanation_is_an_option():
    from skill_tools.evaluation.comments import commented_configs

    ((line, text, offered),) = commented_configs(COMMENTED_VARIANT.format(value="true"))
    assert offered and "use_megatron_fsdp: true" in text and "fsdp_all_gather_in_start_param_sync: true" in text
    assert "Keep this" not in text
    ex = extract_config(COMMENTED_VARIANT.format(value="true"), era="current")
    assert any(a.get("ddp.fsdp_all_gather_in_start_param_sync") is True for a in ex.alternatives)


HOOK = """#!/usr/bin/env bash
# .git/hooks/pre-push: refuse to push a config whose CUDA-graph keys would fail at launch.
#
# Fixed block (paste into configs/train.yaml), dropless MoE:
#
#   model:
#     cuda_graph_impl: transformer_engine
#     cuda_graph_modules: [moe_router, moe_preprocess]   # 0.19 key
#     {scope_line}
#                                                        # (kept for older readers)
#     use_te_rng_tracker: true
#   rng:
#     te_rng_tracker: true
set -euo pipefail
"""


def test_a_commented_fixed_block_is_the_config_the_answer_gives():
    bad = score_one("run-helper-validate", HOOK.format(scope_line="cuda_graph_scope: [moe_router, moe_preprocess]"))
    assert any("scope-and-modules-both" in f for f in bad["fatal"]), bad["fatal"]
    good = extract_config(HOOK.format(scope_line="cuda_graph_scope: null"), era="current").config
    assert good.get("model.cuda_graph_modules") == ["moe_router", "moe_preprocess"] and good.get("rng.te_rng_tracker") is True


def test_the_users_own_config_restated_in_apposition_is_described():
    text = ('Your config, `cpu_offloading=True`, `cpu_offloading_num_layers=4`, `cuda_graph_impl="transformer_engine"`, '
            "stops at config validation on every version.")
    assert set(_roles(text, "model.cpu_offloading")) == {"described"}
    assert set(_roles(text, "model.cuda_graph_impl")) == {"described"}


def test_the_side_a_run_is_compared_with_is_described():
    text = "After upgrading, compare decode step time with `mcore_generation_config.cuda_graph_impl: none`."
    assert _roles(text, "mcore_generation_config.cuda_graph_impl") == ["described"]


def test_the_second_side_of_an_either_or_is_an_option():
    text = ("Either drop activation offloading and keep the TE attn graphs, or keep offloading with "
            '`cuda_graph_impl="none"`.')
    assert _roles(text, "model.cuda_graph_impl") == ["alternative"]


def test_a_later_item_of_a_list_of_settings_has_the_polarity_of_the_first():
    text = ("If you later add `attn`, packed attention needs padded cu_seqlens (on recent Bridge: "
            "`dataset.pad_to_max_length=True`, `offline_packing_specs.pad_cu_seqlens=True`).")
    roles = {b.cfg and next(iter(b.cfg.values), None): b.role for b in extract_config(text).blocks if b.cfg is not None}
    assert roles.get("dataset.pad_to_max_length") == roles.get("dataset.offline_packing_specs.pad_cu_seqlens") != "suggested"


def test_a_list_items_case_label_before_an_arrow_defines_the_case():
    text = ("- **Drop-and-pad** (`moe_expert_capacity_factor` set and `moe_pad_expert_input_to_capacity=True`) "
            "→ `moe` alone.")
    assert _roles(text, "model.moe_pad_expert_input_to_capacity") == ["described"]


def test_a_warning_to_keep_a_warm_up_places_no_capture_on_the_first_step():
    from skill_tools.evaluation.answer_context import AnswerContext
    from skill_tools.evaluation.timing_window import find_window

    def window(text):
        return find_window(AnswerContext(text, extract_config(text), None))

    assert window("# Keep cuda_graph_warmup_steps at >= 1 (default 3): capturing on the very\n"
                  "# first step records one-time initialisation into the graph.\n") is None
    assert window("Graph capture happens on the first step, so drop it and average the rest.") is not None


def test_a_table_introduced_as_spellings_that_look_right_but_are_not_rejects_its_rows():
    text = ("Spellings that look right on 0.17 but aren't:\n\n| You write | What 0.17 does |\n|---|---|\n"
            '| `cuda_graph_impl="transformer_engine"` | not an inference path |\n')
    assert _roles(text, "model.cuda_graph_impl") == ["counterexample"]


def test_the_value_that_gets_past_a_check_is_described():
    text = 'On 0.18 / 0.19 only `cuda_graph_impl="full_iteration"` gets past this particular check.'
    assert _roles(text, "model.cuda_graph_impl") == ["described"]


ERA_COMMENTS = f"""{F}python
cfg.model.cpu_offloading = False
cfg.model.cuda_graph_impl = "transformer_engine"
# 0.18+: cuda_graph_scope = None, cuda_graph_modules = {{modules}}
# 0.16-0.17: cuda_graph_scope = ["attn"]
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True
{F}
"""


def test_a_comment_that_gives_one_eras_settings_is_read_for_that_era():
    current = extract_config(ERA_COMMENTS.format(modules='["attn"]'), era="current").config
    assert current.get("model.cuda_graph_modules") == ["attn"] and current.get("model.cuda_graph_scope") is None
    legacy = extract_config(ERA_COMMENTS.format(modules='["attn"]'), era="legacy").config
    assert legacy.get("model.cuda_graph_scope") == ["attn"] and not legacy.has("model.cuda_graph_modules")
    # a comment that only talks about a version gives no settings
    prose = extract_config(f"{F}python\ncfg.model.cuda_graph_impl = 'local'\n# 0.18+: see the migration notes\n{F}\n")
    assert [b for b in prose.blocks if b.origin == "comment"] == []


def test_a_variable_named_like_a_subject_is_no_mention_of_it():
    from one_answer import checks_of

    code = (f"{F}python\ndef compare(ref, graphed, same_shape_control):\n    bugs, benign = [], []\n"
            "    return bugs, benign\n" + F + "\n")
    text = ("The graphs replay the smallest bucket that fits while eager pads to round_up_tokens; compare "
            "against a same-shape eager control, where any mismatch is a bug.\n\n" + code)
    row = score_one("inference-parity-padded-shapes", text)
    assert all(c["score"] != 0.0 for c in checks_of(row, "claim_absent")), row["fatal"]
