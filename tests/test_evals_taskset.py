"""The task set itself: NVSkills fields, negatives, both eras, every pain point mapped."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from skill_tools.evaluation.tasks import load_tasks

REPO = Path(__file__).resolve().parent.parent
EVALS = REPO / "evals" / "evals.json"
PAIN_POINTS = Path("/work/shared/reference/pain_points.md")
SCHEMA = REPO / "skill_tools" / "schemas" / "evals.schema.json"


@pytest.fixture(scope="module")
def data():
    return json.loads(EVALS.read_text())


def test_schema_and_counts(data):
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(data)
    tasks = data["tasks"]
    assert len(tasks) >= 30
    assert sum(not t["should_trigger"] for t in tasks) >= 6
    assert all(t["sources"] for t in tasks), "every ground truth cites a source"
    load_tasks(EVALS)  # loader agrees


def test_rubric_indexes_point_at_behaviors(data):
    for t in data["tasks"]:
        for b in t["rubric"]["behaviors"]:
            assert 0 <= b["behavior"] < len(t["expected_behavior"]), t["id"]


def test_both_eras_are_exercised(data):
    eras = {c["era"] for t in data["tasks"] for b in t["rubric"]["behaviors"] for c in b["checks"]
            if c["type"] == "era_spelling"}
    assert eras == {"legacy", "current"}
    versions = {t["rubric"].get("mcore_version") for t in data["tasks"]}
    assert {"0.16.1", "0.17.0", "0.19.2"} <= versions


def test_negative_tasks_check_staying_out(data):
    for t in data["tasks"]:
        if not t["should_trigger"]:
            types = {c["type"] for b in t["rubric"]["behaviors"] for c in b["checks"]}
            assert {"no_graph_config", "concept_absent"} <= types, t["id"]
            assert t["expected_skill"] is None


def test_every_pain_point_is_covered_or_out_of_scope(data):
    if not PAIN_POINTS.is_file():
        pytest.skip("pain point catalog not present on this machine")
    ids = set(re.findall(r"^### ([A-H]\d+)\.", PAIN_POINTS.read_text(), re.M))
    assert len(ids) == 58
    covered = {p for t in data["tasks"] for p in t.get("pain_points", [])}
    out = set(data["pain_points_out_of_scope"])
    assert not covered & out
    assert ids == covered | out, sorted(ids ^ (covered | out))
