"""An answer that recommends its config as a ``skill-tools apply`` command is judged by what that
command would write: the line is accepted by skill-tools' own parser, shell variables the answer
assigns are resolved, and the overrides come from the function the command runs. The answers are
written for these tests, in styles of their own."""

from __future__ import annotations

from tests.evaluation.one_answer import checks_of, score_one

F = "```"

SCRIPT = """#!/usr/bin/env bash
set -euo pipefail
CFG=configs/qwen3_30b_a3b.yaml
MCORE=${{MCORE:-0.19.2}}
IMPL=transformer_engine
SCOPE={scope}
skill-tools recommend "$CFG" --mcore-version "$MCORE" --json
skill-tools apply "$CFG" --mcore-version "$MCORE" \\
  --impl "$IMPL" --scope {scope_arg} --out configs/graphs.yaml
skill-tools validate configs/graphs.yaml --mcore-version "$MCORE"
"""


def test_an_apply_command_in_a_script_is_read_as_the_overrides_it_writes():
    wrong = score_one("run-helper-recommend", SCRIPT.format(scope="moe", scope_arg='"$SCOPE"'))
    assert wrong["config"]["values"]["model.cuda_graph_modules"] == ["moe"]
    assert wrong["config"]["values"]["rng.te_rng_tracker"] is True  # apply writes the RNG tracker keys too
    assert not wrong["passed"] and any("moe-scope-needs-drop-pad" in f for f in wrong["fatal"])
    right = score_one("run-helper-recommend", SCRIPT.format(scope="x", scope_arg="moe_router moe_preprocess"))
    assert right["config"]["values"]["model.cuda_graph_modules"] == ["moe_router", "moe_preprocess"]
    assert not right["fatal"]


def test_the_commands_era_decides_the_spelling():
    answer = (f"{F}bash\nskill-tools apply recipe.yaml --mcore-version 0.16.1 --impl transformer_engine "
              f"--scope attn,mlp --warmup 3 --out graphs.yaml\n{F}\n")
    row = score_one("dense-bringup-legacy-016", answer)
    values = row["config"]["values"]
    assert values["model.cuda_graph_scope"] == ["attn", "mlp"] and "model.cuda_graph_modules" not in values
    assert values["model.cuda_graph_warmup_steps"] == 3


def test_a_refused_or_unresolved_command_writes_nothing():
    refused = score_one("dense-te-scoped-bringup", f"{F}bash\nskill-tools apply r.yaml --impl te --scope attn --bogus\n{F}\n")
    assert "model.cuda_graph_impl" not in refused["config"]["values"]
    assert [c["score"] for c in checks_of(refused, "tool_commands")] == [0.0]
    unresolved = score_one("dense-te-scoped-bringup", f"{F}bash\nskill-tools apply r.yaml --impl \"$WHICH\" --scope attn\n{F}\n")
    assert "model.cuda_graph_impl" not in unresolved["config"]["values"]
