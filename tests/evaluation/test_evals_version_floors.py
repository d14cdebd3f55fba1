"""Version floors an answer states (:mod:`skill_tools.evaluation.version_floors`), against the floor
the task's feature needs: a pin or bound below it fails, the highest floor stated is what the user
follows, and a version without a bound is no floor. Answers written for these tests."""

from __future__ import annotations

import pytest
from one_answer import score_one

from skill_tools.evaluation.version_floors import stated_floors

TE = ["TE", "Transformer Engine", "transformer-engine", "transformer_engine", "TransformerEngine"]


@pytest.mark.parametrize("text,floor", [
    ("needs TE >= 2.12", (2, 12, 0)),
    ("pin transformer-engine>=2.9 in requirements.txt", (2, 9, 0)),
    ("transformer_engine[pytorch]>=2.10", (2, 10, 0)),
    ("TE 2.10+ is fine", (2, 10, 0)),
    ("at least TE 2.10", (2, 10, 0)),
    ("Transformer Engine 2.10 or newer", (2, 10, 0)),
    ("| TE | ≥ 2.10 | delayed wgrad |", (2, 10, 0)),
    ("works on every TE from 2.9 on", (2, 9, 0)),
    ("the API landed in TE 2.11", (2, 11, 0)),
    ("TE 2.8 enables explicit graph reset", (2, 8, 0)),
    ("Upgrade Transformer Engine to 2.8 or newer.", (2, 8, 0)),
    ("it calls graph.reset() from TE 2.8 on", (2, 8, 0)),
    ('pip install "transformer-engine==2.9.1"', (2, 9, 1)),  # an exact pin: the build the user would install
])
def test_floors_in_their_spellings(text, floor):
    assert [v for _, v, _ in stated_floors(text, TE)] == [floor]


@pytest.mark.parametrize("text", ["built against TE 2.9", "not TE >= 2.10, which is too old", "test 2.1+ passes"])
def test_a_version_without_a_bound_is_no_floor(text):
    assert stated_floors(text, TE) == []


def test_advice_later_on_the_line_counts_as_a_floor():
    floors = [v for _, v, _ in stated_floors("TE partial graphs need TE >= 2.10 (use >= 2.12; older builds had bugs)", TE)]
    assert floors == [(2, 10, 0), (2, 12, 0)]


BASE = ("Keep `cuda_graph_modules=[\"attn\", \"moe_router\", \"moe_preprocess\"]` with `cuda_graph_impl=\"transformer_engine\"`, "
        "`delay_wgrad_compute=True`, `gradient_accumulation_fusion=True`; no attention bias.\n")


def _floor_check(answer: str) -> dict:
    row = score_one("delayed-wgrad-ep-overlap", answer)
    return next(c for b in row["behaviors"] for c in b["checks"] if c["type"] == "version_floor")


def test_a_floor_below_what_the_feature_needs_fails():
    check = _floor_check(BASE + "Prerequisites: TE >= 2.10.\n")
    assert check["score"] == 0.0 and check["fatal"]


def test_the_highest_floor_stated_is_the_one_followed():
    assert _floor_check(BASE + "TransformerConfig checks TE ≥ 2.10; the overlap checks ask for TE ≥ 2.12, so use that.\n")["score"] == 1.0


def test_no_floor_is_not_judged():
    assert _floor_check(BASE)["score"] is None


def test_full_iteration_said_to_work_from_016_fails():
    row = score_one("recompute-full-with-te", "Full recompute re-runs whole layers, which TE scoped graphs cannot do. "
                    "Fix B: `cuda_graph_impl='full_iteration'` works on every megatron-core from 0.16, with the NaN "
                    "checks off.\n")
    assert any(c["type"] == "version_floor" and c["score"] == 0.0 for b in row["behaviors"] for c in b["checks"])


def test_a_tag_names_megatron_core():
    floors = stated_floors("the rework landed in **core_v0.17.1**, so bump the patch", ["megatron-core", "core_v"])
    assert [v for _, v, _ in floors] == [(0, 17, 1)]
