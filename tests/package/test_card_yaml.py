"""The shipped card.yaml: catalog field shapes and size, valid against its schema, every claim's
citation (benchmarks/validation.yaml) resolves, in sync with results."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml

from skill_tools.package.card import sync
from skill_tools.package.package_lint import check_card

REPO = Path(__file__).resolve().parents[2]
CARD = yaml.safe_load((REPO / "card.yaml").read_text(encoding="utf-8"))
CLAIMS = yaml.safe_load((REPO / "benchmarks" / "validation.yaml").read_text(encoding="utf-8"))["claims"]
#: The largest nemo-mbridge card in NVIDIA's skills catalog (activation-recompute, mirror 7149a88).
PEER_MAX_BYTES = 17_000


@pytest.mark.legacy
def test_card_has_the_catalog_shapes_and_size() -> None:
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", CARD["validated_on"])
    assert set(CARD["validation_status"]) == {c["id"] for c in CLAIMS}
    assert all(isinstance(v, list) and v for v in CARD["validation_status"].values())
    assert all({"metric", "direction", "magnitude", "conditions", "evidence"} <= set(e)
               for e in CARD["expected_metric_change"])
    assert (REPO / "card.yaml").stat().st_size < PEER_MAX_BYTES


@pytest.mark.legacy
def test_card_uses_the_catalog_field_names_for_shared_fields() -> None:
    """The shapes of nemo-mbridge-perf-cuda-graphs / -activation-recompute / -cpu-offloading /
    -memory-tuning (mirror 7149a88): the five training dimensions, failure modes with a likely
    cause, measured runs named by model/task/gpu, the upstream minimal_example keys."""
    assert set(CARD["training_dimensions"]) == {"speed", "memory", "scale", "convergence", "stability"}
    assert all({"effect", "confidence", "rationale"} <= set(d) for d in CARD["training_dimensions"].values())
    assert all({"name", "symptom", "likely_cause", "fix"} <= set(f) for f in CARD["failure_modes"])
    assert all({"model", "task", "gpu", "results_file"} <= set(e) for e in CARD["measured_results"])
    assert all(("variants" in e or "scopes" in e) != ("status" in e and "error" in e)
               for e in CARD["measured_results"])
    assert set(CARD["minimal_example"]) == {"docs_example", "skill_example", "test_path", "cli_path"}
    assert set(CARD["interactions"]) == {"required", "conditional", "incompatible"}


def _citations() -> list[str]:
    out: list[str] = []
    for entry in CLAIMS:
        cited = entry.get("verified_by") or []
        out += [cited] if isinstance(cited, str) else list(cited)
    return out


@pytest.mark.legacy
def test_card_matches_the_schema() -> None:
    assert check_card(REPO) == []


@pytest.mark.legacy
def test_every_validation_status_entry_cites_something() -> None:
    for entry in CLAIMS:
        assert entry.get("verified_by"), f"claim without verified_by: {entry['claim']}"
        if entry["status"] == "verified":
            cited = entry["verified_by"]
            cited = [cited] if isinstance(cited, str) else cited
            assert any(c.startswith(("rule ", "tests/", "benchmarks/results/")) for c in cited), entry


@pytest.mark.legacy
def test_cited_tests_exist() -> None:
    for cite in _citations():
        m = re.match(r"^(tests/[\w/]+\.py)(?:::(\w+))?", cite)
        if not m:
            continue
        path = REPO / m.group(1)
        assert path.is_file(), cite
        if m.group(2):
            names = {n.name for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.FunctionDef)}
            assert m.group(2) in names, f"{cite}: no such test function"


@pytest.mark.legacy
def test_cited_rules_exist_in_the_catalog() -> None:
    catalog = REPO / "skill_tools" / "rules" / "catalog.yaml"
    cited = [c.split()[1] for c in _citations() if c.startswith("rule ")]
    assert len(cited) >= 8
    if not catalog.is_file():
        pytest.skip("skill_tools/rules/catalog.yaml not present in this checkout")
    data = yaml.safe_load(catalog.read_text(encoding="utf-8"))
    rules = data.get("rules", data) if isinstance(data, dict) else data
    ids = {r["id"] for r in rules if isinstance(r, dict)}
    assert not set(cited) - ids, f"card.yaml cites unknown rules: {sorted(set(cited) - ids)}"


@pytest.mark.legacy
def test_verified_results_files_exist() -> None:
    for cite in _citations():
        if cite.startswith("benchmarks/results/") and "*" not in cite.split()[0]:
            assert (REPO / cite.split()[0]).is_file(), cite


@pytest.mark.legacy
def test_external_results_are_labelled_external() -> None:
    assert CARD["external_measured_results"].startswith("EXTERNAL")
    ext = yaml.safe_load((REPO / "benchmarks" / "external-upstream-h100.yaml").read_text(encoding="utf-8"))
    assert ext["source"].startswith("EXTERNAL")
    assert all(r.get("gpu", "").startswith("H100") for r in ext["results"])
    measured = CARD["measured_results"]
    if isinstance(measured, list):  # generated entries never carry the upstream numbers
        assert all((REPO / "benchmarks" / "results" / e["results_file"]).is_file() for e in measured)
    detail = yaml.safe_load((REPO / "benchmarks" / "measured.yaml").read_text(encoding="utf-8"))["measured_results"]
    assert all(e["results_file"].startswith("benchmarks/results/") for e in detail)


@pytest.mark.legacy
def test_card_and_benchmark_are_in_sync_with_results() -> None:
    report = sync(REPO, check=True)
    assert not report.stale, f"run `skill-tools card sync`: stale {report.stale}"
