"""Tests generated from the examples in skill_tools/logs/signatures.yaml.

Every signature carries at least one positive example (a text the reader must report its id for) and
one negative example (a near-miss it must not). A text is read the way ``logs`` reads a file: parsed
(line findings, end-of-parse checks), then through the verdict (traceback refinements, derived
findings); compare checks read a pair of logs through ``compare``.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from skill_tools.logs import verdict
from skill_tools.logs.checks import CHECKS
from skill_tools.logs.compare import compare
from skill_tools.logs.diagnose import CATALOG_PATH, load_catalog
from skill_tools.logs.parse import parse_lines

CATALOG = load_catalog()
with open(CATALOG_PATH, encoding="utf-8") as _fh:
    _RAW = {e["id"]: e for e in yaml.safe_load(_fh)["signatures"]}


def _found(example: Any, sig_id: str) -> set[str]:
    if isinstance(example, dict):
        eager = parse_lines(example["eager"].splitlines(), source="eager")
        graph = parse_lines(example["graph"].splitlines(), source="graph")
        return {f.id for f in compare(eager, graph).failures}
    log = parse_lines(example.splitlines(), source=f"<example of {sig_id}>")
    return {f.id for f in log.failures} | {f.id for f in verdict.build(log).failures}


def _cases(kind: str) -> list[Any]:
    return [pytest.param(sig.id, i, ex, id=f"{sig.id}-{kind}{i}")
            for sig in CATALOG for i, ex in enumerate(getattr(sig, kind))]


@pytest.mark.parametrize("sig_id", [s.id for s in CATALOG])
def test_every_signature_has_both_examples(sig_id: str) -> None:
    sig = next(s for s in CATALOG if s.id == sig_id)
    assert sig.positive, f"{sig_id}: no positive example"
    assert sig.negative, f"{sig_id}: no negative example"
    compare_check = sig.check is not None and CHECKS[sig.check].phase == "compare"
    for ex in sig.positive + sig.negative:
        # a compare check reads two logs; every other signature reads one text
        assert isinstance(ex, dict) == compare_check, f"{sig_id}: example shape {type(ex).__name__}"


@pytest.mark.parametrize("sig_id,index,example", _cases("positive"))
def test_positive_example_is_found(sig_id: str, index: int, example: Any) -> None:
    found = _found(example, sig_id)
    assert sig_id in found, f"{sig_id} positive #{index}: found {sorted(found)}"


@pytest.mark.parametrize("sig_id,index,example", _cases("negative"))
def test_negative_example_is_not_found(sig_id: str, index: int, example: Any) -> None:
    found = _found(example, sig_id)
    assert sig_id not in found, f"{sig_id} negative #{index}: found {sorted(found)}"


def test_every_check_name_is_dispatched_from_the_registry() -> None:
    used = {s.check for s in CATALOG if s.check}
    assert used <= set(CHECKS), used - set(CHECKS)
    # every registered check is used by some signature (no dead entries in the registry)
    assert set(CHECKS) <= used, set(CHECKS) - used
    for sig in CATALOG:
        if sig.check == "during_capture":
            assert sig.otherwise is None or sig.otherwise in _RAW


def test_unregistered_check_is_refused(tmp_path) -> None:
    bad = tmp_path / "sigs.yaml"
    bad.write_text(yaml.safe_dump({"signatures": [
        {"id": "x", "check": "no_such_check", "cause": "c", "fix": "f", "source": "s"}]}))
    with pytest.raises(ValueError, match="not registered"):
        load_catalog(str(bad))


def test_header_names_every_registered_check() -> None:
    with open(CATALOG_PATH, encoding="utf-8") as fh:
        header = fh.read().split("\nsignatures:\n", 1)[0]
    for name in CHECKS:
        assert name in header, f"signatures.yaml header does not describe check {name!r}"
