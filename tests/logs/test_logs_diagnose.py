"""Failure-signature catalog and diagnosis on real issue excerpts (tests/fixtures/logs/README.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from skill_tools.logs.diagnose import CATALOG_PATH, Diagnoser, load_catalog
from skill_tools.logs.parse import diagnose_lines

FIX = Path(__file__).parents[1] / "fixtures" / "logs"
pytestmark = pytest.mark.legacy


def _ids(path: str) -> list[str]:
    return [f.id for f in diagnose_lines((FIX / path).read_text().splitlines())]


def test_catalog_entries_are_complete_and_unique():
    raw = yaml.safe_load(CATALOG_PATH.read_text())["signatures"]
    ids = [e["id"] for e in raw]
    assert len(ids) == len(set(ids))
    for e in raw:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", e["id"]), e["id"]
        assert e["severity"] in ("error", "warning")
        assert e.get("needles") or e.get("regex") or e.get("check"), e["id"]
        for key in ("cause", "fix", "source"):
            assert str(e.get(key, "")).strip(), (e["id"], key)
        assert "rule" in e and "pain_point" in e, e["id"]


def test_issue_required_signatures_exist():
    ids = {s.id for s in load_catalog()}
    required = {
        "rng-tracker-not-graph-safe", "invalid-graph-scope", "full-recompute-with-scoped-graphs",
        "packed-seq-non-tensor-input", "te-attention-backend-missing", "cuda-oom",
        "illegal-memory-access", "stream-capture-invalidated", "nccl-error",
        "expandable-segments-nccl-register", "graph-input-mismatch", "nan-after-capture",
        "no-speedup", "cpu-offloading",
    }
    assert required <= ids


def test_every_needle_matches_its_own_signature_first_or_a_more_specific_one():
    diag = Diagnoser()
    for sig in load_catalog():
        for needle in sig.needles:
            hit = diag.match(f"[rank0]: AssertionError: {needle}")
            assert hit is not None, needle
            assert hit.id == sig.id, (needle, hit.id)


def test_rng_tracker_real_log_quotes_line_and_counts():
    failures = diagnose_lines((FIX / "bridge_pr3856_rng_tracker.log").read_text().splitlines())
    assert [f.id for f in failures] == ["rng-tracker-not-graph-safe"]
    f = failures[0]
    assert f.line_no == 3
    assert f.evidence == "[rank0]: AssertionError: RNG tracker does not support cudagraphs!"
    assert f.rule == "te-rng-tracker-required"
    assert f.ranks == [0]
    d = f.to_dict()
    assert {"id", "line_no", "evidence", "cause", "fix", "rule"} <= d.keys()


@pytest.mark.parametrize(
    "fixture, expected",
    [
        ("sglang_issue8336_watchdog_headline.log", "illegal-memory-access"),
        ("lmdeploy_issue3258_dist_backend_error.log", "illegal-memory-access"),
        ("ms_swift_issue3264_tqdm_glued.log", "illegal-memory-access"),
        ("mlm_issue1525_nccl_watchdog.log", "nccl-error"),
        ("bridge_issue2974_child_failed.log", "worker-failed"),
        ("mlm_issue5966_nan_te_graphs.log", "nan-or-inf"),
    ],
)
def test_real_failure_logs(fixture, expected):
    assert _ids(fixture)[0] == expected


def test_healthy_real_logs_have_no_failures():
    for name in (
        "mlm_issue756_mixtral_moe.log",
        "bridge_issue2403_deepseek_v3.log",
        "mlm_slurm_aws_memory_timers.log",
        "ling_v2_pre016_mtp.log",
        "bridge_llama31_gb_memory.log",
        "bridge_qwen3_sft_checkpoint.log",
        "bridge_pr643_te_capture_interleaved.log",
    ):
        assert _ids(name) == [], name


def test_nan_after_capture_vs_without_capture():
    before = [
        "INFO:megatron.core.full_cuda_graph:Capture CUDA graph for training!!!",
        "ERROR:megatron.core.rerun_state_machine:Rank 0, node n0, device 0, iteration #91: "
        "found NaN in local grad norm for bucket #0 in backward pass before data-parallel "
        "communication collective!",
    ]
    assert [f.id for f in diagnose_lines(before)] == ["nan-after-capture"]
    assert [f.id for f in diagnose_lines(before[1:])] == ["nan-or-inf"]


def test_time_limit_counts_as_teardown_hang_only_after_training_finished():
    cancel = "slurmstepd: error: *** STEP 1250740.1 ON ptyche0181 CANCELLED AT 2025-11-24T22:14:50 DUE TO TIME LIMIT ***"
    done = "[after training is done] datetime: 2025-11-24 21:52:53 "
    assert "teardown-hang" in [f.id for f in diagnose_lines([done, cancel])]
    assert "teardown-hang" not in [f.id for f in diagnose_lines([cancel])]


def test_diagnose_lines_never_raises_on_odd_text():
    assert diagnose_lines(["", "\x00\x01", "\x1b[31mred\x1b[0m", "a\rb"]) == []
    assert diagnose_lines([]) == []


def test_yaml_comments_did_not_cut_any_text():
    """A plain YAML scalar ending at ' #123' would silently lose the issue number."""
    for line in CATALOG_PATH.read_text().splitlines():
        m = re.match(r"\s+(source|cause|fix|rule|pain_point): (?![>\"'])(.*)", line)
        if m:
            assert " #" not in m.group(2), line
    for sig in load_catalog():
        assert not sig.source.rstrip().endswith(("PR", "issue", ",")), (sig.id, sig.source)


RULES_CATALOG = Path(__file__).resolve().parents[2] / "skill_tools" / "rules" / "catalog.yaml"


def _referenced_rules() -> set[str]:
    refs = set()
    for sig in load_catalog():
        if sig.rule:
            refs.add(sig.rule)
        refs.update(sig.needle_rules.values())
    return refs


@pytest.mark.skipif(not RULES_CATALOG.exists(), reason="skill_tools/rules/catalog.yaml not written yet")
def test_every_referenced_rule_exists_in_the_validator_catalog():
    rules = yaml.safe_load(RULES_CATALOG.read_text())
    rules = rules["rules"] if isinstance(rules, dict) else rules
    ids = {r["id"] for r in rules}
    missing = sorted(_referenced_rules() - ids)
    assert not missing, f"signatures.yaml references rule ids absent from catalog.yaml: {missing}"


def test_specific_message_reports_its_specific_rule():
    (f,) = diagnose_lines(["AssertionError: moe cuda graph is only supported with drop-padding MoE."])
    assert (f.id, f.rule) == ("invalid-graph-scope", "moe-scope-needs-drop-pad")
    (f,) = diagnose_lines(["ValueError: Energon native sequence packing does not support CUDA graphs."])
    assert (f.id, f.rule) == ("packed-seq-non-tensor-input", "energon-packing")
