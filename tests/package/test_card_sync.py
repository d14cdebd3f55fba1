"""`skill-tools card sync`: generated card sections and BENCHMARK.md follow the results files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from skill_tools.package.card import (
    expected_metric_change,
    load_results,
    measured_results,
    render_benchmark,
    sync,
)
from skill_tools.cli import main
from skill_tools.errors import InputError

FIXTURES = Path(__file__).parents[1] / "fixtures"
pytestmark = pytest.mark.legacy


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    (tmp_path / "benchmarks" / "results").mkdir(parents=True)
    for f in (FIXTURES / "results").glob("*.json"):
        shutil.copy(f, tmp_path / "benchmarks" / "results" / f.name)
    shutil.copy(FIXTURES / "card-minimal.yaml", tmp_path / "card.yaml")
    return tmp_path


def test_every_measured_entry_names_its_results_file(skill: Path) -> None:
    files, skipped = load_results(skill)
    assert [f.kind for f in files] == ["training", "inference", "evals", "tool"]
    assert skipped == []
    entries = measured_results(files)
    assert len(entries) == 7  # 5 training + 2 inference variants; evals carry no variants
    for e in entries:
        assert e["results_file"].startswith("benchmarks/results/") and (skill / e["results_file"]).is_file()
    te = next(e for e in entries if e["variant"] == "te-attn-mlp")
    assert te["speedup_vs_eager"] == 1.25 and te["speedup_ci95"] == [1.2, 1.3]
    assert te["modules"] == ["attn", "mlp"] and te["status"] == "success" and te["gpu"] == "NVIDIA H200"
    assert next(e for e in entries if e["variant"] == "local-moe")["status"] == "failed"
    assert next(e for e in entries if e["variant"] == "eager")["status"] == "baseline"
    opt = next(e for e in entries if e["variant"] == "optimizer-graph")  # impl none, but graphed
    assert opt["status"] == "success" and opt["optimizer_graph"] is True and opt["speedup_vs_eager"] == 1.05


def test_expected_change_direction_follows_the_confidence_interval(skill: Path) -> None:
    files, _ = load_results(skill)
    changes = expected_metric_change(files)
    step = {c["config"]: c for c in changes if c["metric"] == "step_time"}
    te = step["cuda_graph_impl=transformer_engine modules=['attn', 'mlp']"]
    assert te["direction"] == "down" and "-20.0% step time" in te["magnitude"]
    assert step["cuda_graph_impl=full_iteration"]["direction"] == "neutral_ci_spans_1"
    assert step["cuda_graph_impl=local modules=['moe']"]["direction"] == "not_measured"
    mem = [c for c in changes if c["metric"] == "peak_memory"]
    assert mem and mem[0]["direction"] == "up" and "+0.50 GB" in mem[0]["magnitude"]
    dec = next(c for c in changes if c["metric"] == "decode_step_time")
    assert dec["direction"] == "down" and dec["evidence"].endswith("inference-h200.json")
    assert all(c["evidence"].startswith("benchmarks/results/") for c in changes)


def test_sync_writes_then_check_is_clean_and_comments_survive(skill: Path) -> None:
    report = sync(skill)
    assert sorted(report.written) == ["BENCHMARK.md", "benchmarks/measured.yaml", "card.yaml", "references/rules.md"]
    text = (skill / "card.yaml").read_text()
    assert "# A hand-written comment that sync must keep." in text and "# inline comment kept" in text
    card = yaml.safe_load(text)
    assert card["title"] == "test card" and isinstance(card["measured_results"], list)
    # catalog shapes: one date string, one compact entry per harness file naming it
    assert card["validated_on"] == "2026-01-04"  # the eval report; the helper-speed file (01-05) does not count
    assert sorted(e["results_file"] for e in card["measured_results"]) == ["2026-01-02-training-h200.json",
                                                                           "2026-01-03-inference-h200.json"]
    detail = yaml.safe_load((skill / "benchmarks" / "measured.yaml").read_text())
    assert len(detail["measured_results"]) == 7 and len(card["expected_metric_change"]) <= 6
    assert sync(skill, check=True).stale == []
    assert sync(skill).written == []  # idempotent


def test_proxy_loop_results_stay_out_of_the_card(skill: Path) -> None:
    """A training file without an engine is the harness's own loop: detail only, labelled proxy."""
    data = json.loads((FIXTURES / "results" / "2026-01-02-training-h200.json").read_text())
    del data["workload"]["engine"]
    (skill / "benchmarks" / "results" / "2026-01-06-training-h200.json").write_text(json.dumps(data))
    sync(skill)
    card = yaml.safe_load((skill / "card.yaml").read_text())
    assert "2026-01-06-training-h200.json" not in {e["results_file"] for e in card["measured_results"]}
    detail = yaml.safe_load((skill / "benchmarks" / "measured.yaml").read_text())
    proxy = [e for e in detail["measured_results"] if e["results_file"].endswith("2026-01-06-training-h200.json")]
    assert proxy and {e["engine"] for e in proxy} == {"proxy"}


def test_check_detects_a_hand_edited_number_and_a_new_results_file(skill: Path) -> None:
    sync(skill)
    card = skill / "card.yaml"
    card.write_text(card.read_text().replace("x1.25 [1.20, 1.30]", "x1.90 [1.20, 1.30]"))
    assert sync(skill, check=True).stale == ["card.yaml"]
    sync(skill)
    detail = skill / "benchmarks" / "measured.yaml"
    detail.write_text(detail.read_text().replace("speedup_vs_eager: 1.25", "speedup_vs_eager: 1.9"))
    assert sync(skill, check=True).stale == ["benchmarks/measured.yaml"]
    sync(skill)
    data = json.loads((FIXTURES / "results" / "2026-01-02-training-h200.json").read_text())
    data["date"] = "2026-02-01"
    (skill / "benchmarks" / "results" / "2026-02-01-training-h200.json").write_text(json.dumps(data))
    assert sorted(sync(skill, check=True).stale) == ["BENCHMARK.md", "benchmarks/measured.yaml", "card.yaml"]


def test_benchmark_md_has_date_gpu_versions_and_eval_gate(skill: Path) -> None:
    files, _ = load_results(skill)
    md = render_benchmark(files)
    for needle in ("2026-01-02", "NVIDIA H200", "0.19.2", "2.10.0", "570.00", "x1.25 [1.20, 1.30]",
                   "Gate: PASS", "with_skill", "(sample answers, not an agent: how far the rubric separates them): mean 0.310",
                   "evals-score-speed", "within budget"):
        assert needle in md, needle
    assert md == render_benchmark(files)  # deterministic


def test_no_results_yields_an_explicit_unverified_statement(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "card-minimal.yaml", tmp_path / "card.yaml")
    sync(tmp_path)
    card = yaml.safe_load((tmp_path / "card.yaml").read_text())
    assert card["measured_results"].startswith("no harness results yet")
    assert "No harness results yet" in (tmp_path / "BENCHMARK.md").read_text()


def test_bad_results_file_is_a_clear_input_error(skill: Path) -> None:
    (skill / "benchmarks" / "results" / "2026-03-01-training-h200.json").write_text('{"kind": "training"}')
    with pytest.raises(InputError, match="2026-03-01-training-h200.json: has no 'variants' list"):
        sync(skill)
    (skill / "benchmarks" / "results" / "2026-03-01-training-h200.json").write_text("{oops")
    with pytest.raises(InputError, match="is not valid JSON"):
        sync(skill)


def test_unknown_json_is_skipped_not_fatal(skill: Path) -> None:
    (skill / "benchmarks" / "results" / "notes.json").write_text('{"hello": 1}')
    files, skipped = load_results(skill)
    assert [s["path"] for s in skipped] == ["benchmarks/results/notes.json"]


def test_cli_check_exit_codes_and_json(skill: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["card", "sync", "--check", "--root", str(skill), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is False and sorted(out["stale"]) == ["BENCHMARK.md", "benchmarks/measured.yaml", "card.yaml",
                                                          "references/rules.md"]
    assert main(["card", "sync", "--root", str(skill)]) == 0
    capsys.readouterr()
    assert main(["card", "sync", "--check", "--root", str(skill), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True
    assert main(["card", "sync", "--root", str(skill / "missing")]) == 2
