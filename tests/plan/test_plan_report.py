"""The decision line and the headroom of measured plans, from the committed H200 results."""

from __future__ import annotations

import json

from skill_tools.plan import build
from skill_tools.plan.report import decision, headroom_lines, memory_lines

RESULTS = "benchmarks/results/2026-12-03-training-megatron-lm-h200-"


def _doc(repo, stem: str) -> dict:
    return json.loads((repo / f"{RESULTS}{stem}.json").read_text())


def test_a_ci_above_one_is_a_use_decision_with_its_memory_cost(repo):
    line = decision(_doc(repo, "llama3-8b-shape"))
    assert line.startswith("use full_iteration: 1.03x [1.02, 1.03], +1.3 GB reserved")


def test_a_ci_across_one_says_leave_graphs_off(repo):
    assert decision(_doc(repo, "qwen3-30b-a3b-shape")).startswith(
        "leave graphs off: no variant beats eager's CI (best te:attn+moe_router+moe_preprocess 0.97x")


def test_a_loss_difference_is_said_with_the_decision(repo):
    line = decision(_doc(repo, "qwen15-moe-shared-shape"))
    assert line.startswith("use te:attn+moe_router+moe_preprocess: 1.39x") and "loss differs from eager" in line


def test_memory_is_set_against_the_gpu_and_projected_to_all_layers(repo):
    plan = build(repo / "examples/megatron_lm_llama3_8b.sh")
    lines = memory_lines(_doc(repo, "llama3-8b-shape"), plan)
    assert lines[0].startswith("eager: 42.9 GB allocated") and "of 139 GB (4 layers); all 32 layers projected" in lines[0]


def test_headroom_names_each_part_and_what_removes_it(repo):
    lines = headroom_lines(_doc(repo, "dense-tiny-headroom"))
    full = lines[lines.index(next(x for x in lines if x.startswith("full_iteration:"))):]
    assert full[0].startswith("full_iteration: step 5.75 ms, kernels 1.46 ms")
    assert any(x.strip().startswith("optimizer.step") and "--optimizer-cuda-graph" in x for x in full)


_RESULTS = __import__("pathlib").Path(__file__).resolve().parents[2] / "benchmarks" / "results"
#: Users' configs at their real layer shapes (Megatron-LM's and Bridge's loops) and the tiny headroom studies.
REAL_SHAPES = sorted([*_RESULTS.glob("2026-12-03-training-megatron-lm-h200-*-sha*.json"),
                      *_RESULTS.glob("2026-12-03-training-bridge-h200-*-shape.json"),
                      *_RESULTS.glob("2026-12-03-training-megatron-lm-h200-dense-tiny-headroom*.json")])


def test_the_real_shape_runs_are_committed():
    names = {p.stem for p in REAL_SHAPES}
    assert {"2026-12-03-training-megatron-lm-h200-llama3-8b-shape",
            "2026-12-03-training-megatron-lm-h200-llama3-8b-shape-headroom",
            "2026-12-03-training-bridge-h200-qwen3-30b-a3b-shape",
            "2026-12-03-training-megatron-lm-h200-qwen15-moe-shared-shape",
            "2026-12-03-training-megatron-lm-h200-dense-tiny-headroom-ladder"} <= names, names


@__import__("pytest").mark.parametrize("path", REAL_SHAPES, ids=lambda p: p.stem)
def test_real_shape_results_follow_from_their_committed_logs(path):
    """bench --rebuild derives every number again from the logs and sidecars, plan variants included."""
    from skill_tools.harness.rebuild import rebuild

    committed = json.loads(path.read_text())
    again = rebuild(path)
    for old, new in zip(committed["variants"], again["variants"], strict=True):
        for key in ("name", "captured", "replayed", "graphs_count", "error_class", "speedup_vs_eager",
                    "loss_max_abs_delta", "step_ms", "capture_iteration", "kernel_ms_per_step"):
            assert new.get(key) == old.get(key), (old["name"], key)
    if committed["workload"].get("config"):
        assert again["workload"]["shape"] == committed["workload"]["shape"]
