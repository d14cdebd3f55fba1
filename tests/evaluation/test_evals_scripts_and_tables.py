"""Forms answers take that the readers must see through: a whole answer that is one shell script
(its ``#!`` line, its header comments that document rather than introduce it, a quoted ``yq``
edit over several lines, a version test ``if [ "$MCORE_MINOR" -ge 18 ]``, ``case`` arms and
one-line arrays, variables a template renders), an agent transcript's ``<tool_call>`` /
``<tool_result>``, a commit message whose lines name flags in prose, a table row marked as the
cause, a list item that labels a case, a table row that states a claim, a claim over wrapped
comment lines, a formula's term, two recipes' configs and a later mention of the second, and
``apply --scope`` written the way Megatron-LM's flag takes it. Answers written for these tests,
through the whole scorer."""

from __future__ import annotations

import pytest
from one_answer import checks_of, score_one

F = "```"


def test_a_whole_shell_script_with_a_multi_line_yq_edit_is_read():
    answer = """#!/usr/bin/env bash
# Patch the Bridge override YAML for TE graphs on attention + MLP (megatron-core 0.16.1).
set -euo pipefail
CFG="${1:-conf/overrides.yaml}"
yq -i '
  .model.cuda_graph_impl = "transformer_engine" |
  .model.cuda_graph_scope = ["attn", "mlp"] |
  .model.cuda_graph_warmup_steps = 3 |
  .model.use_te_rng_tracker = true |
  .rng.te_rng_tracker = true
' "$CFG"
"""
    row = score_one("dense-bringup-legacy-016", answer)
    values = row["config"]["values"]
    assert values["model.cuda_graph_impl"] == "transformer_engine", values
    assert values["model.cuda_graph_scope"] == ["attn", "mlp"]
    assert values["rng.te_rng_tracker"] is True


def test_a_script_header_that_says_what_changed_does_not_reject_the_script():
    answer = """#!/bin/bash
#SBATCH -N 1
# Changes vs the failing job:
#   1. MBS 1 -> 4
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
torchrun --nproc-per-node 8 pretrain_gpt.py --cuda-graph-impl transformer_engine --cuda-graph-modules attn
"""
    row = score_one("pp-memory-oom", answer)
    assert row["config"]["env"].get("PYTORCH_CUDA_ALLOC_CONF") == "expandable_segments:True", row["config"]
    assert row["config"]["values"].get("model.cuda_graph_impl") == "transformer_engine"


def test_a_shell_version_test_gives_each_branch_its_era():
    answer = """#!/bin/bash
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
export NCCL_GRAPH_REGISTER=0
MCORE_MINOR=$(python -c "import megatron.core as m; print(m.__version__.split('.')[1])")
if [ "$MCORE_MINOR" -ge 18 ]; then
  GRAPH_ARGS="--cuda-graph-impl transformer_engine --cuda-graph-modules attn"
else
  GRAPH_ARGS="--cuda-graph-impl transformer_engine --cuda-graph-scope attn"
fi
torchrun --nproc-per-node 8 pretrain_gpt.py --pipeline-model-parallel-size 8 --micro-batch-size 4 $GRAPH_ARGS
"""
    row = score_one("pp-memory-oom", answer)
    assert "model.cuda_graph_scope" not in row["config"]["values"], row["config"]
    assert not [c for c in checks_of(row, "written_settings") if c["score"] == 0.0]


def test_case_arms_and_one_line_arrays_are_commands():
    answer = """#!/bin/bash
#SBATCH --array=0-1
case "$SLURM_ARRAY_TASK_ID" in
  0) GRAPH_ARGS=(--cuda-graph-impl none) ;;
  1) GRAPH_ARGS=(--cuda-graph-impl local --cuda-graph-scope full_iteration_inference) ;;
esac
srun python examples/inference/gpt/gpt_dynamic_inference.py "${GRAPH_ARGS[@]}"
"""
    values = score_one("inference-decode-legacy-017", answer)["config"]["values"]
    assert values.get("model.cuda_graph_scope") == ["full_iteration_inference"], values


def test_a_here_document_template_is_read_with_the_scripts_values():
    answer = """#!/usr/bin/env bash
export CG_IMPL="${CG_IMPL:-transformer_engine}"
export CG_MODULES="${CG_MODULES:-[attn]}"
cat > cg.tmpl.yaml <<'TMPL'
model:
  cuda_graph_impl: ${CG_IMPL}
  cuda_graph_modules: ${CG_MODULES}
  cuda_graph_warmup_steps: ${CG_WARMUP:-3}
TMPL
envsubst < cg.tmpl.yaml > cg.yaml
"""
    values = score_one("dense-te-scoped-bringup", answer)["config"]["values"]
    assert values["model.cuda_graph_impl"] == "transformer_engine", values
    assert values["model.cuda_graph_modules"] == ["attn"]
    assert values["model.cuda_graph_warmup_steps"] == 3


def test_a_tool_call_writes_a_file_and_a_tool_result_recommends_nothing():
    answer = f"""I'll write the fixed config and validate it.

<tool_call name="write_file" path="graphs.yaml">
model:
  cuda_graph_impl: transformer_engine
  cuda_graph_scope: null
  cuda_graph_modules: [moe_router, moe_preprocess]
  use_te_rng_tracker: true
rng:
  te_rng_tracker: true
</tool_call>

<tool_result exit_code="1">
  - moe-and-moe-router error -> fix: model.cuda_graph_modules=[moe]
</tool_result>
"""
    values = score_one("run-helper-validate", answer)["config"]["values"]
    assert values["model.cuda_graph_modules"] == ["moe_router", "moe_preprocess"], values


def test_prose_lines_of_a_commit_message_are_not_flags():
    answer = f"""{F}
commit 1/1  examples/gpt3: capture the whole iteration

      --cuda-graph-impl full_iteration   0.18+ spelling. The whole forward+backward is one graph.
      --no-check-for-nan-in-loss-and-grad
                                         the NaN check syncs with the host and cannot be captured
    No --cuda-graph-modules: it must stay empty for full_iteration.
{F}
"""
    values = score_one("full-iteration-current", answer)["config"]["values"]
    assert values.get("model.cuda_graph_impl") == "full_iteration", values
    assert not values.get("model.cuda_graph_modules")


def test_a_table_row_marked_as_the_cause_describes_it():
    answer = f"""| | Setting | Status |
|---|---|---|
| 🔴 | `cuda_graph_scope=["mlp"]` with `local` | **cause** |

Fix: scoped capture needs Transformer Engine graphs.

{F}python
cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_scope = ["mlp"]
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True
{F}
"""
    row = score_one("local-partial-scope-crash", answer)
    assert row["config"]["values"]["model.cuda_graph_impl"] == "transformer_engine", row["config"]


def test_a_list_item_that_labels_a_case_does_not_ask_for_its_settings():
    answer = f"""Which module to keep depends on the MoE type:
- **dropless** (the usual case): `moe_router` + `moe_preprocess`;
- **drop-and-pad** (`moe_expert_capacity_factor` set and `moe_pad_expert_input_to_capacity=True`): `moe` alone.

{F}yaml
model:
  cuda_graph_impl: transformer_engine
  cuda_graph_scope: null
  cuda_graph_modules: [moe_router, moe_preprocess]
  use_te_rng_tracker: true
rng:
  te_rng_tracker: true
{F}
"""
    values = score_one("run-helper-validate", answer)["config"]["values"]
    assert "model.moe_pad_expert_input_to_capacity" not in values, values


def test_a_table_row_states_its_claim_across_cells():
    answer = """| Layer kind | What it is | Scope |
|---|---|---|
| Gated DeltaNet | linear-recurrent mixer, same family as Mamba | `mamba` |
| Mamba-2 | `MambaLayer` | `mamba` |
"""
    (claim,) = [c for c in checks_of(score_one("gdn-mamba-scope", answer), "claim_absent") if c["name"] == "GDN under mamba"]
    assert claim["score"] == 0.0, claim


def test_a_claim_wrapped_over_comment_lines_is_one_sentence():
    answer = """-- Compare the graphed decode with eager padded to the same buckets.
--   * Differences between trial 0 and trial 1 of the same 'block' variant are normal bf16
--     nondeterminism and can be ignored.
"""
    claims = {c["name"]: c for c in checks_of(score_one("inference-parity-padded-shapes", answer), "claim_absent")}
    assert claims["a mismatch a real bug shows, dismissed as noise"]["score"] == 0.0


def test_a_term_of_a_formula_is_not_the_subject_of_a_claim():
    wrong = "Compare `algbw` with your hardware: it is the real bytes per second. Ignore busbw."
    right = "Read busbw. busbw = algbw * 2(n-1)/n is the number you compare with the hardware."
    name = "algbw is the number to compare with the hardware"
    claims = lambda a: {c["name"]: c for c in checks_of(score_one("neg-nccl-bandwidth", a), "claim_absent")}  # noqa: E731
    assert claims(wrong)[name]["score"] == 0.0
    assert claims(right)[name]["score"] is None


def test_a_mention_of_the_second_recipe_does_not_change_the_first():
    answer = f"""## Recipe 1 — was `enable_cuda_graph=True` + `cuda_graph_scope=["full_iteration"]`

{F}python
cfg.model.cuda_graph_impl = "full_iteration"
cfg.model.cuda_graph_scope = None
cfg.model.cuda_graph_modules = []
cfg.rerun_state_machine.check_for_nan_in_loss = False
cfg.ddp.check_for_nan_in_grad = False
{F}

## Recipe 2 — was `cuda_graph_impl="transformer_engine"` + `cuda_graph_scope=["attn","moe_router"]`

{F}python
cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_scope = None
cfg.model.cuda_graph_modules = ["attn", "moe_router"]
{F}

0.18+ still accepts `cuda_graph_scope` with a deprecation warning. Megatron-LM flags:
`--cuda-graph-scope attn moe_router` → `--cuda-graph-modules attn moe_router`.
"""
    row = score_one("migrate-016-to-019", answer)
    assert row["config"]["values"]["model.cuda_graph_modules"] == [], row["config"]
    assert row["passed"], row["fatal"]


def test_apply_takes_a_scope_list_with_spaces_or_commas(tmp_path, capsys):
    from skill_tools.cli import main

    src = tmp_path / "r.yaml"
    src.write_text("model:\n  num_layers: 4\n")
    for argv in (["apply", str(src), "--impl", "transformer_engine", "--scope", "attn", "mlp", "--mcore-version", "0.19.2"],
                 ["apply", "--impl", "transformer_engine", "--mcore-version", "0.19.2", "--scope", "attn", "mlp", str(src)],
                 ["apply", str(src), "--impl", "transformer_engine", "--scope", "attn,mlp", "--mcore-version", "0.19.2"]):
        assert main(argv) == 0
        assert "cuda_graph_modules: [attn, mlp]" in capsys.readouterr().out.replace("\n  - ", "")
    assert main(["apply", "--impl", "transformer_engine", "--scope", "attn"]) == 2
    assert "no config file given" in capsys.readouterr().err


def test_case_arms_on_the_minor_version_give_each_arm_its_era():
    answer = """#!/usr/bin/env bash
MINOR=$(python -c "import megatron.core as m; print(m.__version__.split('.')[1])")
case "$MINOR" in
  17)
    GRAPH_ARGS=(--cuda-graph-impl local --cuda-graph-scope full_iteration_inference)
    ;;
  18|19)
    GRAPH_ARGS=(--cuda-graph-impl local --inference-cuda-graph-scope block)
    ;;
  *) echo "unknown"; exit 1 ;;
esac
python examples/inference/gpt/gpt_dynamic_inference.py "${GRAPH_ARGS[@]}" --te-rng-tracker
"""
    row = score_one("inference-decode-legacy-017", answer)
    assert "model.inference_cuda_graph_scope" not in row["config"]["values"], row["config"]
    assert row["config"]["values"]["model.cuda_graph_scope"] == ["full_iteration_inference"]


@pytest.mark.parametrize("verb", ["allows `moe` for", "lets you graph `moe` with"])
def test_a_restriction_wrapped_inside_a_quote_names_a_condition(verb):
    answer = f"""> MCore only {verb} **drop-and-pad** MoE (capacity factor
> + `moe_pad_expert_input_to_capacity=True`). Otherwise it asserts.

{F}python
cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_scope = None
cfg.model.cuda_graph_modules = ["moe_router", "moe_preprocess"]
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True
{F}
"""
    values = score_one("moe-dropless-bringup", answer)["config"]["values"]
    assert "model.moe_pad_expert_input_to_capacity" not in values, values


def test_a_module_that_reads_package_versions_and_copies_a_list_is_read():
    answer = '''"""Apply to the ConfigContainer your recipe returns."""
from importlib.metadata import version

GRAPH_MODULES = ["attn", "moe_router", "moe_preprocess"]


def enable_te_graphs(cfg):
    m = cfg.model
    m.cuda_graph_impl = "transformer_engine"
    m.cuda_graph_scope = None
    m.cuda_graph_modules = list(GRAPH_MODULES)
    m.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    m.gradient_accumulation_fusion = True
    mods = {str(getattr(x, "name", x)) for x in m.cuda_graph_modules}
    assert version("transformer_engine") >= "2.12", mods
    return cfg
'''
    row = score_one("delayed-wgrad-ep-overlap", answer)
    assert not row["findings"], row["findings"]
    assert row["config"]["values"]["model.cuda_graph_modules"] == ["attn", "moe_router", "moe_preprocess"]
