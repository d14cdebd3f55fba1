"""The task set itself: NVSkills fields, negatives, both eras, every pain point mapped."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from skill_tools.evaluation.tasks import load_tasks

REPO = Path(__file__).resolve().parents[2]
EVALS = REPO / "evals" / "evals.json"
#: The project's shared/ folder (reference material), inside the checkout or beside it.
PAIN_POINTS = next((p for p in (REPO / "shared" / "reference" / "pain_points.md",
                                REPO.parent / "shared" / "reference" / "pain_points.md") if p.is_file()),
                   REPO / "shared" / "reference" / "pain_points.md")
SCHEMA = REPO / "skill_tools" / "schemas" / "evals.schema.json"


COVERAGE = REPO / "evals" / "coverage.json"


@pytest.fixture(scope="module")
def data():
    tasks = json.loads(EVALS.read_text())
    assert isinstance(tasks, list), "evals.json is a top-level NVSkills task list"
    return {"tasks": tasks, **json.loads(COVERAGE.read_text())}


def test_schema_and_counts(data):
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(data["tasks"])
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


# The layouts of the NVSkills catalog (github:NVIDIA/skills, skills/*/evals/evals.json): a
# top-level task list without should_trigger (negatives: expected_skill null), and
# {skill_name, evals} with prompt / expected_output / assertions. Texts here are our own.
CATALOG_LIST = [
    {"id": "te-scoped-moe", "question": "Which cuda_graph_impl for a Bridge MoE?", "expected_skill": "demo",
     "expected_script": None, "ground_truth": "Use cuda_graph_impl=\"transformer_engine\".",
     "expected_behavior": ["Recommend transformer_engine scoped graphs."]},
    {"id": "neg", "question": "How do I tune NCCL?", "expected_skill": None,
     "ground_truth": "nccl-tests.", "expected_behavior": ["Run nccl-tests."]},
]
SKILL_EVALS = {"skill_name": "demo", "evals": [
    {"id": 1, "prompt": "Turn on graphs", "expected_output": "cuda_graph_impl=local",
     "assertions": [{"name": "impl", "text": "Sets cuda_graph_impl"}, "Mentions warmup"]},
    {"id": "n1", "prompt": "Unrelated", "expected_skill": None, "expected_output": "x", "assertions": ["No graphs"]},
]}


@pytest.mark.parametrize("doc", [CATALOG_LIST, {"tasks": CATALOG_LIST}, SKILL_EVALS], ids=["list", "tasks", "skill_evals"])
def test_every_catalog_layout_loads(tmp_path, doc):
    path = tmp_path / "evals.json"
    path.write_text(json.dumps(doc))
    ts = load_tasks(path)
    trig = {t.id: t.should_trigger for t in ts.tasks.values()}
    assert sum(trig.values()) == 1 and len(trig) == 2
    assert all(t.data["question"] and t.behaviors for t in ts.tasks.values())
    if doc is SKILL_EVALS:
        assert ts.tasks["1"].behaviors == ["Sets cuda_graph_impl", "Mentions warmup"]
        assert ts.tasks["1"].data["expected_skill"] == "demo"


def test_explicit_should_trigger_wins_over_expected_skill(tmp_path):
    path = tmp_path / "e.json"
    path.write_text(json.dumps([dict(CATALOG_LIST[1], should_trigger=True)]))
    assert load_tasks(path).tasks["neg"].should_trigger is True


@pytest.mark.parametrize("doc,needle", [
    ({"skill": "x"}, "not an eval task set"),
    ([{"id": "a", "question": "q"}], "$[0] (task 'a')"),
    ({"skill_name": "s", "evals": [{"id": 1}]}, "$.evals[0]"),
])
def test_schema_errors_name_the_place_and_fit_a_standalone_file(tmp_path, doc, needle):
    from skill_tools.errors import InputError
    path = tmp_path / "e.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError) as exc:
        load_tasks(path)
    assert needle in str(exc.value), str(exc.value)
    assert "lint" not in (exc.value.hint or "")


def test_lint_reads_the_list_layout_through_the_shared_loader():
    from skill_tools.package.package_lint import check_evals
    assert check_evals(REPO, "megatron-cuda-graphs") == []
