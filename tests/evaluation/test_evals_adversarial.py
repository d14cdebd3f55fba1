"""The scorer against answers written to fool it: per task two correct styles, one subtly fatal,
one vague, one off-topic (evals/answers/adversarial*.jsonl), on the rubric tasks and on plain
NVSkills tasks without a rubric. The benchmark's targets are the test's assertions."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _bench():
    spec = importlib.util.spec_from_file_location("bench_evals", REPO / "benchmarks" / "bench_evals.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_adversarial_targets(tmp_path):
    bench = _bench()
    out = tmp_path / "q.json"
    bench.quality(str(out))
    r = json.loads(out.read_text())
    assert r["tasks"] >= 15 and r["correct_answers"] >= 24
    assert r["fatal_false_passes"] == 0, r["false_pass_answers"]
    assert r["false_passes"] == 0, r["false_pass_answers"]
    assert r["correct_false_fail_rate"] <= 1 / 24, r["false_fail_answers"]
    assert r["inverted_pair_rate"] <= 0.03, r["inversions"]


def test_every_fatal_answer_names_its_fatal_finding(tmp_path):
    bench = _bench()
    out = tmp_path / "q.json"
    bench.quality(str(out))
    rows = json.loads(out.read_text())["rows"]
    fatal = [r for r in rows if r["class"] == "fatal" and not r["id"].startswith("plain-neg")]
    assert fatal and all(r["fatal"] or r["score"] < 0.5 for r in fatal), [r for r in fatal if not r["fatal"]]
