"""Each command's --json, run as the real program on real inputs (the examples, upstream corpus
configs, committed bench runs, the answer sets, log fixtures), is one JSON document on standard
output that validates against the schema the registry names (error.schema.json on exit 2)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skill_tools.json_output import MAX_ITEMS, OUTPUTS, validator

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p.name for p in (REPO / "examples").iterdir() if p.is_file())
RUN = "benchmarks/results/2026-12-03-training-megatron-lm-h200-dense-tiny-ab-150steps"


def run_json(command: str, *argv: str, cwd: Path = REPO, stdin: str | None = None) -> tuple[int, dict]:
    """``skill-tools ARGV --json`` in a fresh interpreter; its whole stdout parsed and validated."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-m", "skill_tools", *argv, "--json"], cwd=cwd, env=env, input=stdin,
                          capture_output=True, text=True, timeout=300)
    assert proc.stdout.strip(), proc.stderr[-2000:]
    doc = json.loads(proc.stdout)  # the whole of stdout: nothing printed beside the document
    schema = "error" if proc.returncode == 2 else command
    errors = sorted(validator(schema).iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, f"{argv}: {[(list(e.path), e.message[:200]) for e in errors[:3]]}"
    if schema != "error":
        assert doc["schema_version"] == OUTPUTS[command].version
    return proc.returncode, doc


@pytest.mark.parametrize("name", EXAMPLES)
def test_validate_recommend_apply_on_every_example(name):
    path = f"examples/{name}"
    rc, doc = run_json("validate", "validate", path)
    assert rc in (0, 1) and doc["source"].endswith(name) and doc["findings_total"] == len(doc["findings"])
    rc, doc = run_json("recommend", "recommend", path)
    assert rc in (0, 1) and doc["impl"]
    rc, doc = run_json("apply", "apply", path, "--impl", "transformer_engine", "--scope", "attn")
    assert rc in (0, 1)
    if rc == 0:
        assert doc["ok"] and doc["written"] is None and doc["overrides"]


def _corpus_cases(n_per_format: int = 2) -> list[dict]:
    """A few upstream configs of each format (the first ones of the committed corpus, by id)."""
    cases = [json.loads(line) for line in (REPO / "benchmarks/upstream_corpus/cases.jsonl").read_text().splitlines()]
    picked: dict[str, list[dict]] = {}
    for case in sorted(cases, key=lambda c: (-len(c["text"]), c["id"])):  # the longest configs first
        picked.setdefault(case["format"], [])
        if len(picked[case["format"]]) < n_per_format:
            picked[case["format"]].append(case)
    return [c for group in picked.values() for c in group]


@pytest.mark.parametrize("case", _corpus_cases(), ids=lambda c: c["id"])
def test_validate_and_apply_on_upstream_corpus_configs(case, tmp_path):
    path = tmp_path / ("config.yaml" if case["format"] == "yaml" else "launch.sh")
    path.write_text(case["text"] + "\n")
    common = (str(path), "--input-format", case["format"], "--mcore-version", case["mcore_version"])
    rc, doc = run_json("validate", "validate", *common)
    assert rc in (0, 1) and doc["mcore_version"] == case["mcore_version"]
    rc, doc = run_json("apply", "apply", *common, "--impl", "local", "--scope", "full_iteration")
    assert rc in (0, 1)
    if rc == 1:
        assert doc["ok"] is False and any(f["severity"] == "error" for f in doc["findings"])


def test_apply_in_place_reports_the_file_written(tmp_path):
    target = tmp_path / "recipe.yaml"
    shutil.copy(REPO / "examples/bridge_moe_dropless.yaml", target)
    rc, doc = run_json("apply", "apply", str(target), "--impl", "transformer_engine", "--scope", "moe_router",
                       "--in-place")
    assert rc == 0 and doc["written"] == str(target) and doc["diff"] and doc["diff_total"] == len(doc["diff"])


def test_validate_reads_stdin():
    text = (REPO / "examples/hydra_overrides_moe_scopes.txt").read_text()
    rc, doc = run_json("validate", "validate", "-", "--input-format", "hydra", stdin=text)
    assert rc in (0, 1) and doc["source"] == "<stdin>"


def test_lint_and_card_sync_on_the_package():
    rc, doc = run_json("lint", "lint")
    assert rc in (0, 1) and doc["findings_total"] >= len(doc["findings"])
    rc, doc = run_json("card sync", "card", "sync", "--check")
    assert rc in (0, 1) and doc["results_files_total"] >= 1


@pytest.mark.parametrize("argv,kind", [
    (("--list-variants",), "variants"),
    (("--bridge-cmd", "--model-recipe", "qwen3_30b_a3b", "--model-family", "qwen"), "bridge-command"),
    (("--dry-run",), "dry-run"),
    (("--dry-run", "--workload", "moe", "--engine", "bridge"), "dry-run"),
    (("--mode", "inference", "--dry-run"), "inference-plan"),
    (("--config", "examples/megatron_lm_llama3_8b.sh", "--dry-run"), "plan"),
    (("--config", "examples/bridge_qwen3_30b_a3b.yaml", "--plan-cluster"), "cluster-plan"),
])
def test_bench_modes_without_a_gpu(argv, kind):
    rc, doc = run_json("bench", "bench", *argv)
    assert rc == 0 and doc["kind"] == kind


def test_bench_rebuild_of_a_committed_run(tmp_path):
    """A real Megatron-LM A/B run folder (logs and sidecars) rebuilt into a results document."""
    shutil.copytree(REPO / RUN, tmp_path / Path(RUN).name)
    shutil.copy(REPO / f"{RUN}.json", tmp_path)
    rc, doc = run_json("bench", "bench", "--rebuild", str(tmp_path / f"{Path(RUN).name}.json"))
    assert rc == 0 and doc["kind"] == "results" and doc["results"]["variants"] and doc["truncated"] is False


def test_precheck_from_results_and_from_a_config():
    rc, doc = run_json("precheck", "precheck", "--results", "benchmarks/results/2026-12-02-training-h200-dense-tiny.json")
    assert rc == 0 and doc["kind"] == "prediction"
    rc, doc = run_json("precheck", "precheck", "--config", "examples/bridge_moe_dropless.yaml")
    assert rc in (0, 2) and doc.get("kind", "plan") == "plan"


def test_evals_score_is_capped_on_stdout_and_whole_in_json_out(tmp_path):
    """Every committed answer set at once: more answers than the cap."""
    answers = tmp_path / "all.jsonl"
    answers.write_text("".join(p.read_text() for p in sorted((REPO / "evals/answers").glob("*.jsonl"))))
    full = tmp_path / "full.json"
    rc, doc = run_json("evals score", "evals", "score", "--answers", str(answers), "--json-out", str(full))
    assert rc in (0, 1) and doc["kind"] == "scores"
    whole = json.loads(full.read_text())
    assert doc["answers_total"] == len(whole["answers"]) > MAX_ITEMS
    assert len(doc["answers"]) == MAX_ITEMS and doc["truncated"] is True
    assert doc["answers"] == whole["answers"][:MAX_ITEMS]


def test_evals_execution_plan():
    rc, doc = run_json("evals score", "evals", "score", "--answers", "evals/answers/strong.jsonl", "--execute",
                       "--dry-run")
    assert rc == 0 and doc["kind"] == "execution-plan" and doc["answers_total"] == len(doc["answers"])


AGENT = """import sys
sys.stdin.read()
print("```yaml\\nmodel:\\n  cuda_graph_impl: transformer_engine\\n  cuda_graph_modules: [attn]\\n```")
"""


def test_evals_run_prints_only_the_document_on_stdout(tmp_path):
    agent = tmp_path / "agent.py"
    agent.write_text(AGENT)
    rc, doc = run_json("evals run", "evals", "run", "--agent-cmd", f"{sys.executable} {agent}", "--without-skill",
                       "--ids", "dense-te-scoped-bringup", "--out", str(tmp_path / "a.jsonl"))
    assert rc in (0, 1) and doc["kind"] == "scores" and doc["answers_total"] == 1


@pytest.mark.parametrize("logs", [
    ("tests/fixtures/logs/synthetic_mlm_full_iteration.log",),
    ("tests/fixtures/logs/te_issue2543_capture_traceback.log",),
    ("tests/fixtures/logs/synthetic_mlm_eager.log", "tests/fixtures/logs/synthetic_mlm_full_iteration.log"),
])
def test_logs(logs):
    rc, doc = run_json("logs", "logs", *logs)
    assert doc["kind"] in ("log", "comparison")


@pytest.mark.parametrize("command,argv", [
    ("validate", ("validate", "no/such/file.yaml")),
    ("apply", ("apply", "examples/bridge_moe_dropless.yaml")),
    ("recommend", ("recommend", "no/such/file.sh")),
    ("lint", ("lint", "no/such/folder")),
    ("bench", ("bench", "--config", "no/such/recipe.yaml", "--dry-run")),
    ("precheck", ("precheck", "--results", "no/such/results.json")),
    ("evals score", ("evals", "score", "--answers", "no/such/answers.jsonl")),
    ("logs", ("logs", "no/such/run.log")),
])
def test_refusals_print_the_error_document(command, argv):
    rc, doc = run_json(command, *argv)
    assert rc == 2 and doc["ok"] is False and doc["error"]["exit_code"] == 2


def test_bench_inference_workload_this_machine_cannot_build(tmp_path):
    """A workload whose stack is missing here is reported (exit 1), not run; skipped where it can run."""
    _, plan = run_json("bench", "bench", "--mode", "inference", "--workload", "tiny-hybrid-moe", "--dry-run")
    if not plan["unavailable_on_this_machine"]:
        pytest.skip("tiny-hybrid-moe can be built here: a --json run would use the GPU")
    rc, doc = run_json("bench", "bench", "--mode", "inference", "--workload", "tiny-hybrid-moe", "--out", str(tmp_path))
    assert rc == 1 and doc["kind"] == "inference-unavailable" and doc["unavailable"]
    assert Path(doc["artifacts"]["json"]).is_file()


def test_validate_with_the_oracle():
    pytest.importorskip("megatron.core")
    rc, doc = run_json("validate", "validate", "examples/bridge_llama_dense_graph_mistakes.yaml", "--oracle")
    assert rc == 1 and doc["oracle"]["ran"] is True
