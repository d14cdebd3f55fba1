"""The real-log corpus (tests/fixtures/logs/corpus/corpus.yaml): every entry gets its expected verdict.

Each entry is a verbatim excerpt from a public issue/PR (or a real run of this project's GPU
harness) with the thread's root cause and the verdict the text supports. The benchmark
(benchmarks/bench_logs_corpus.py) reports the same scoring as counts.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

CORPUS = Path(__file__).parents[1] / "fixtures" / "logs" / "corpus"
sys.path.insert(0, str(CORPUS))

import score_corpus  # noqa: E402

ENTRIES = score_corpus.load()
pytestmark = pytest.mark.legacy


def test_corpus_is_large_and_sourced():
    public = [e for e in ENTRIES if not e["source"].startswith("run:")]
    assert len(public) >= 40
    for e in ENTRIES:
        assert score_corpus.path_of(e).is_file(), e["file"]
        for key in ("source", "root_cause", "fix", "expected"):
            assert str(e.get(key, "")).strip(), (e["id"], key)
        assert set(e["expected"]) >= {"stack", "causes", "finding", "capture"}, e["id"]
    assert len({e["id"] for e in ENTRIES}) == len(ENTRIES)


def test_expected_ids_exist_in_the_catalog():
    from skill_tools.logs.diagnose import load_catalog
    from skill_tools.logs.evidence import STATUSES
    from skill_tools.logs.stacks import STACKS

    ids = {s.id for s in load_catalog()}
    for e in ENTRIES:
        assert set(e["expected"]["causes"]) <= ids, e["id"]
        assert set(e["expected"]["capture"]) <= set(STATUSES), e["id"]
        assert set(e["expected"]["stack"]) <= set(STACKS) | {"unknown"}, e["id"]


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["id"] for e in ENTRIES])
def test_corpus_verdict(entry):
    r = score_corpus.score(entry)
    assert r["outcome"] == "right", (r["why"], r.get("got"))
