"""``evals score --execute`` without a GPU: engine megatron-lm wired as ``bench`` wires it, with fake
run callables standing in for Megatron-LM's pretrain() and the real ``run_variants`` aggregation."""

from __future__ import annotations

import json

import pytest

from skill_tools.config.era import era_for
from skill_tools.evaluation.execute import Executor
from skill_tools.evaluation.score import score_all
from skill_tools.evaluation.tasks import AnswerRecord, load_tasks
from skill_tools.harness.engines.megatron_lm.cli import Training

from conftest import REPO  # noqa: F401  (the repository root fixture module)

ERA = era_for("0.19.2")
WHEEL = Training("wheel", None)


def _worker(name, steps_ms, losses, *, graphed):
    return {"name": name, "engine": "megatron-lm", "ok": True, "raw_step_ms": steps_ms, "losses": losses,
            "captured": graphed, "replayed": graphed, "graphs_count": int(graphed),
            "graph_records": {"torch.cuda.CUDAGraph captures": int(graphed)},
            "replays_per_step": 1.0 if graphed else 0.0, "kernel_ms_per_step": 1.0,
            "memory": {}, "env": {"gpu": "FakeGPU", "driver": None, "torch": "2", "megatron_core": "0.19.2",
                                  "transformer_engine": "2.20.2", "cuda": "13.0"}}


class FakeRun:
    """Records every variant it is asked to run; graphed variants capture, replay and keep the loss."""

    def __init__(self, fail: str | None = None):
        self.specs = []
        self.fail = fail

    def __call__(self, spec, trial, out_dir, timeout_s):
        self.specs.append(spec)
        iso = {"returncode": 0, "timed_out": False, "log_path": "x.log", "tail": "", "error_class": None,
               "evidence": None, "wall_s": 1.0}
        if self.fail and spec.graphed:
            return {"trial": trial, "worker": {"ok": False, "phase": "capture", "exception": self.fail},
                    "isolation": dict(iso, returncode=1, error_class="capture_error", evidence=self.fail)}
        steps = [10.0] * 6 if not spec.graphed else [4.0] * 6
        return {"trial": trial, "isolation": iso,
                "worker": _worker(spec.name, steps, [5.0, 4.9, 4.8], graphed=spec.graphed)}


@pytest.fixture(scope="module")
def taskset():
    return load_tasks(REPO / "evals" / "evals.json")


def _score(taskset, tmp_path, answers, run, **kw):
    ex = Executor(tmp_path, engine="megatron-lm", era=ERA, training=WHEEL, run=run, **kw)
    recs = [AnswerRecord(tid, "with_skill", "t", text, i + 1) for i, (tid, text) in enumerate(answers)]
    return score_all(taskset, recs, executor=ex), ex


def _executes(answer):
    return [c for b in answer["behaviors"] for c in b["checks"] if c["type"] == "executes"][0]


MOE_OK = ("Use `cuda_graph_impl=transformer_engine` with `cuda_graph_modules=[moe_router,moe_preprocess]` "
          "and `rng.te_rng_tracker=true`.")


def test_moe_answer_runs_on_the_tasks_moe_workload_through_the_real_aggregation(taskset, tmp_path):
    run = FakeRun()
    report, ex = _score(taskset, tmp_path, [("moe-dropless-bringup", MOE_OK)], run)
    a = report["answers"][0]
    assert [s.name for s in run.specs] == ["eager", "te:moe_router+moe_preprocess"]
    assert all(s.engine == "megatron-lm" and s.workload == "moe" for s in run.specs)
    e = a["execution"]
    assert e["captured"] and e["replayed"] and e["loss_ok"] and e["engine"] == "megatron-lm"
    assert e["speedup"] == pytest.approx(2.5)
    flags = e["details"]["megatron_lm_flags"]
    assert "--num-experts" in flags and flags[flags.index("--cuda-graph-modules") + 1:][:2] == ["moe_router", "moe_preprocess"]
    assert _executes(a)["score"] == 1.0
    # a second score of the same config is answered from the cache, without a run
    report2, _ = _score(taskset, tmp_path, [("moe-dropless-bringup", MOE_OK)], FakeRun())
    assert report2["answers"][0]["execution"]["cache"] == "hit"


def test_a_failed_capture_scores_zero_with_the_runs_evidence(taskset, tmp_path):
    run = FakeRun(fail="AcceleratorError: operation not permitted when stream is capturing")
    report, _ = _score(taskset, tmp_path, [("moe-dropless-bringup", MOE_OK)], run)
    c = _executes(report["answers"][0])
    assert c["score"] == 0.0 and "capture_error" in c["explanation"] and "capturing" in c["evidence"]


def test_refusal_names_the_answer_when_its_settings_cause_it(taskset, tmp_path):
    run = FakeRun()
    bad = "Use `cuda_graph_impl=transformer_engine` with `cuda_graph_modules=[moe]` and `rng.te_rng_tracker=true`."
    report, _ = _score(taskset, tmp_path, [("moe-dropless-bringup", bad)], run)
    e = report["answers"][0]["execution"]
    assert not run.specs  # refused before any GPU time
    assert e["error_class"] == "refused" and e["refused_by"].startswith("answer")
    assert _executes(report["answers"][0])["score"] == 0.0


def test_refusal_names_the_task_context_when_the_stated_setup_causes_it(tmp_path):
    tasks = [{"id": "offload", "question": "Activation offloading with TE graphs: what else do I set?",
              "expected_skill": "megatron-cuda-graphs", "ground_truth": "x", "expected_behavior": ["runs"],
              "rubric": {"mcore_version": "0.19.2", "workload": "dense",
                         "context": {"model": {"cuda_graph_impl": "transformer_engine", "cuda_graph_modules": ["attn"],
                                               "cpu_offloading": True}},
                         "behaviors": [{"behavior": 0, "checks": [{"type": "executes"}]}]}}]
    path = tmp_path / "evals.json"
    path.write_text(json.dumps(tasks))
    run = FakeRun()
    report, _ = _score(load_tasks(path), tmp_path / "cache", [("offload", "Set `rng.te_rng_tracker=true`.")], run)
    e = report["answers"][0]["execution"]
    assert not run.specs and e["error_class"] == "refused"
    assert e["refused_by"].startswith("task context"), e["refused_by"]


def test_task_of_the_other_era_is_skipped_with_the_reason(taskset, tmp_path):
    run = FakeRun()
    report, _ = _score(taskset, tmp_path, [("full-iteration-legacy", "Set `model.cuda_graph_impl=local` and "
                                            "`model.cuda_graph_scope=[full_iteration]`.")], run)
    a = report["answers"][0]
    assert not run.specs and "legacy era" in a["execution"]["skipped"]
    assert _executes(a)["score"] is None


def test_no_gpu_skips(taskset, tmp_path):
    from skill_tools.errors import NoGpuError

    def no_gpu():
        raise NoGpuError("no CUDA device")

    ex = Executor(tmp_path, engine="megatron-lm", era=ERA, training=WHEEL, gpu_check=no_gpu)
    report = score_all(taskset, [AnswerRecord("moe-dropless-bringup", "with_skill", "t", MOE_OK, 1)], executor=ex)
    assert report["answers"][0]["execution"]["skipped"].startswith("no GPU")


def test_dry_run_json_lists_the_exact_megatron_lm_flags(tmp_path, monkeypatch, capsys):
    from skill_tools.cli import main
    from skill_tools.harness.engines.megatron_lm import cli as real_loop

    monkeypatch.setattr(real_loop, "locate_training", lambda path, era: WHEEL)
    answers = tmp_path / "a.jsonl"
    answers.write_text("\n".join(json.dumps({"id": tid, "condition": "with_skill", "answer": text}) for tid, text in [
        ("moe-dropless-bringup", MOE_OK),
        ("full-iteration-current", "Set `model.cuda_graph_impl=full_iteration`, "
                                   "`rerun_state_machine.check_for_nan_in_loss=false`, `rng.te_rng_tracker=true`."),
        ("moe-dropless-bringup", "Set `cuda_graph_impl=transformer_engine`, `cuda_graph_modules=[moe]`."),
    ]) + "\n")
    rc = main(["evals", "score", "--answers", str(answers), "--execute", "--dry-run", "--json",
               "--mcore-version", "0.19.2", "--cache-dir", str(tmp_path / "c")])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["engine"] == "megatron-lm"
    moe, full, refused = out["answers"]
    graphed = moe["plan"]["variants"][-1]["megatron_lm_flags"]
    assert "--moe-token-dispatcher-type" in graphed and "--cuda-graph-impl" in graphed
    assert graphed[graphed.index("--cuda-graph-impl") + 1] == "transformer_engine"
    full_flags = full["plan"]["variants"][-1]["megatron_lm_flags"]
    assert full_flags[full_flags.index("--cuda-graph-impl") + 1] == "full_iteration"
    assert "--no-check-for-nan-in-loss-and-grad" in full_flags
    assert "refused" in refused["plan"] and refused["refused_by"].startswith("answer")
    assert not (tmp_path / "c").exists()  # nothing ran, nothing cached


# --------------------------------------------------------------------------------------------
# engine bridge: the answer's graph settings as the Hydra overrides Bridge's pretrain() is handed
# --------------------------------------------------------------------------------------------

FULL_ITER_BRIDGE = ("In Bridge set `model.cuda_graph_impl=full_iteration`, `rng.te_rng_tracker=true`, "
                    "`model.use_te_rng_tracker=true` and `rerun_state_machine.check_for_nan_in_loss=false`.")


def test_bridge_engine_runs_the_answer_as_bridge_overrides(taskset, tmp_path):
    from hydra.core.override_parser.overrides_parser import OverridesParser

    run = FakeRun()
    ex = Executor(tmp_path, engine="bridge", era=ERA, run=run)
    recs = [AnswerRecord("full-iteration-current", "with_skill", "t", FULL_ITER_BRIDGE, 1)]
    a = score_all(taskset, recs, executor=ex)["answers"][0]
    assert [s.engine for s in run.specs] == ["bridge", "bridge"] and run.specs[1].impl == "full_iteration"
    e = a["execution"]
    assert e["engine"] == "bridge" and e["captured"] and e["replayed"] and e["loss_ok"]
    overrides = e["details"]["bridge_overrides"]
    assert "model.cuda_graph_impl=full_iteration" in overrides
    assert "rerun_state_machine.check_for_nan_in_loss=false" in overrides
    assert "megatron_lm_flags" not in e["details"]
    parsed = OverridesParser.create().parse_overrides(overrides=overrides)  # Hydra's grammar, as Bridge parses
    assert len(parsed) == len(overrides) and not any(p.is_sweep_override() for p in parsed)


def test_bridge_engine_refuses_what_bridge_refuses_before_running(taskset, tmp_path):
    """A per-layer local answer is refused by the Bridge-only rule (Bridge raises at validate())."""
    run = FakeRun()
    ex = Executor(tmp_path, engine="bridge", era=ERA, run=run)
    plan = ex.plan(*_cfg("`model.cuda_graph_impl=local` with `model.use_te_rng_tracker=true` and "
                         "`rng.te_rng_tracker=true`"))
    assert plan["engine"] == "bridge" and "bridge-local-scoped" in plan["refused"]
    assert not run.specs


def _cfg(text):
    from skill_tools.evaluation.extract import extract_config

    return extract_config(text).config, "dense"


def test_configs_that_differ_only_in_keys_not_run_share_each_gpu_run(taskset, tmp_path):
    """Two answers whose configs hash apart but run the same variants: the eager control and the
    graphed variant each go to the GPU once; both answers get the run's result."""
    run = FakeRun()
    other = MOE_OK + " Keep `log_interval=5` for the comparison."
    report, ex = _score(taskset, tmp_path, [("moe-dropless-bringup", MOE_OK), ("moe-dropless-bringup", other)], run)
    first, second = (a["execution"] for a in report["answers"])
    assert first["config_hash"] != second["config_hash"]
    assert [s.name for s in run.specs] == ["eager", "te:moe_router+moe_preprocess"]
    assert ex.ran == 2 and first["speedup"] == second["speedup"] == pytest.approx(2.5)
    assert all(_executes(a)["score"] == 1.0 for a in report["answers"])
