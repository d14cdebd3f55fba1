"""Results schema, aggregation, report rendering, precheck arithmetic, and the bench CLI without a GPU."""

from __future__ import annotations

import json

import pytest

from skill_tools.errors import InputError
from skill_tools.harness.precheck import predict, predict_from_results
from skill_tools.harness.report import markdown, plot, write_outputs
from skill_tools.harness.results import load_results, validate_results
from skill_tools.harness.engines.proxy import cli as proxy_cli
from skill_tools.harness.runner import run_variants
from skill_tools.harness.spec import named_variant


def _worker(name, steps_ms, losses, *, captured=False, replayed=False, graphs=0, kernel=1.0):
    return {"name": name, "ok": True, "raw_step_ms": steps_ms, "losses": losses, "captured": captured,
            "replayed": replayed, "graphs_count": graphs, "graph_records": {"X": graphs},
            "replays_per_step": 1.0 if replayed else 0.0, "kernel_ms_per_step": kernel,
            "memory": {"max_allocated_before_capture_mb": 10.0, "max_allocated_after_capture_mb": 12.0,
                       "max_reserved_before_capture_mb": 20.0, "max_reserved_after_capture_mb": 30.0},
            "env": {"gpu": "FakeGPU", "driver": "1", "torch": "2", "megatron_core": "0.19.2",
                    "transformer_engine": "2.20.2", "cuda": "13.0"}}


def _fake_run(spec, trial, out_dir, timeout_s):
    """Stands in for a worker process: deterministic numbers per variant."""
    iso = {"returncode": 0, "timed_out": False, "log_path": "x.log", "tail": "", "error_class": None,
           "evidence": None, "wall_s": 1.0}
    if spec.name == "local":
        return {"trial": trial, "worker": {"ok": False, "phase": "capture",
                                           "exception": "AcceleratorError: CUDA error: operation would make the "
                                                        "legacy stream depend on a capturing blocking stream"},
                "isolation": dict(iso, returncode=1, error_class="capture_error",
                                  evidence="operation not permitted when stream is capturing")}
    if spec.name == "eager":
        w = _worker("eager", [15.0 + 0.1 * (i % 3) for i in range(20)], [5.0, 4.9, 4.8], kernel=1.0)
    else:
        w = _worker(spec.name, [1.5 + 0.01 * (i % 3) for i in range(20)], [5.0, 4.9, 4.8005],
                    captured=True, replayed=True, graphs=1, kernel=1.0)
    return {"trial": trial, "worker": w, "isolation": iso}


@pytest.fixture
def doc(tmp_path):
    specs = [named_variant(n) for n in ("eager", "full_iteration", "local")]
    return run_variants(specs, trials=2, out_dir=tmp_path, progress=False, run=_fake_run,
                        workload=proxy_cli.workload_record(specs[0], 2))


def test_schema_fields_and_aggregation(doc):
    assert validate_results(doc) == []
    eager, full, local = doc["variants"]
    assert doc["kind"] == "training" and doc["schema_version"] == 1
    assert doc["env"]["gpu"] == "FakeGPU"
    assert eager["step_ms"]["n"] == 40 and len(eager["raw_step_ms"]) == 40
    assert 9.5 < full["speedup_vs_eager"]["point"] < 10.2
    assert full["speedup_vs_eager"]["ci95_low"] <= full["speedup_vs_eager"]["point"] <= full["speedup_vs_eager"]["ci95_high"]
    assert full["captured"] and full["replayed"] and full["graphs_count"] == 1
    assert full["loss_max_abs_delta"] == pytest.approx(0.0005, abs=1e-9) and full["loss_ok"]
    assert full["gpu_busy_fraction"] == pytest.approx(1.0 / full["step_ms"]["median"], rel=1e-3)
    assert local["error_class"] == "capture_error" and not local["captured"]
    assert len(local["trials"]) == 1  # a failed variant is not retried
    assert "legacy stream" in local["exception"] and local["failed_phase"] == "capture"


def test_validate_flags_missing_fields(doc):
    broken = json.loads(json.dumps(doc))
    del broken["variants"][0]["speedup_vs_eager"]
    del broken["env"]
    problems = validate_results(broken)
    assert any("env" in p for p in problems) and any("speedup_vs_eager" in p for p in problems)


def test_load_results_refuses_non_results(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"kind": "training"}')
    with pytest.raises(InputError, match="not a results file"):
        load_results(bad)


def test_markdown_and_outputs(doc, tmp_path):
    md = markdown(doc)
    assert "| full_iteration | yes | yes | 1 |" in md
    assert "capture_error" in md and "FakeGPU" in md
    assert "worker exception (capture phase)" in md
    paths = write_outputs(doc, tmp_path, "x")
    assert paths["json"].exists() and paths["md"].exists()
    assert load_results(paths["json"])["variants"][1]["name"] == "full_iteration"


def test_plot_is_optional(doc, tmp_path, capsys):
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert plot(doc, tmp_path / "p.png") is None
        assert "matplotlib is not installed" in capsys.readouterr().err
    else:
        assert plot(doc, tmp_path / "p.png").stat().st_size > 1000


def test_precheck_prediction_and_check(doc):
    pred = predict_from_results(doc)
    assert pred.pays_off and pred.host_gap_fraction > 0.9
    assert pred.measured_variant == "full_iteration" and pred.prediction_correct
    busy = predict(10.0, 9.5)
    assert not busy.pays_off and busy.speedup_bound < 1.1


def test_bench_without_gpu_exits_2(monkeypatch, capsys):
    import shutil

    from skill_tools.cli import main

    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert main(["bench", "--workload", "dense", "--impl", "full_iteration"]) == 2
    assert "no CUDA GPU" in capsys.readouterr().err


def test_bench_refuses_unrunnable_before_gpu(capsys):
    from skill_tools.cli import main

    assert main(["bench", "--workload", "dense", "--impl", "transformer_engine", "--scope", "moe"]) == 2
    assert "dense workload" in capsys.readouterr().err


def test_bridge_cmd_pair(capsys):
    from skill_tools.cli import main

    assert main(["bench", "--bridge-cmd", "--impl", "full_iteration", "--json"]) == 0
    pair = json.loads(capsys.readouterr().out)
    assert pair["eager"][-2:] == ["--cuda_graph_impl", "none"]
    assert pair["graph"][-4:] == ["--cuda_graph_impl", "local", "--cuda_graph_scope", "full_iteration"]
    assert pair["eager"][:-2] == pair["graph"][:-4]
    assert main(["bench", "--bridge-cmd", "--impl", "local"]) == 2


def test_execute_config_refuses_unrunnable_and_needs_a_gpu(tmp_path, monkeypatch):
    import shutil

    from skill_tools.config.model import CanonicalConfig
    from skill_tools.errors import NoGpuError
    from skill_tools.harness.engines.proxy.cli import execute_config

    cfg = CanonicalConfig(source="c.yaml")
    cfg.set("rng.te_rng_tracker", True)
    cfg.set("model.cuda_graph_impl", "transformer_engine")
    cfg.set("model.cuda_graph_modules", ["moe_router"])
    with pytest.raises(InputError, match="dense workload"):
        execute_config(cfg, workload="dense", cache_dir=tmp_path)
    cfg.set("model.cuda_graph_modules", ["attn"])
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(NoGpuError):
        execute_config(cfg, workload="dense", cache_dir=tmp_path)


def test_execute_config_answers_from_cache_without_gpu(tmp_path, monkeypatch):
    import shutil

    from skill_tools.config.model import CanonicalConfig
    from skill_tools.harness.engines.proxy.cli import ExecutionResult, execute_config, execution_spec

    cfg = CanonicalConfig(source="c.yaml")
    cfg.set("rng.te_rng_tracker", True)
    cfg.set("model.cuda_graph_impl", "full_iteration")
    cfg.set("rerun_state_machine.check_for_nan_in_loss", False)
    spec = execution_spec(cfg, steps=20)
    assert spec.capture_stream == "shared"
    cached = ExecutionResult(captured=True, replayed=True, loss_ok=True, error_class=None, evidence=None,
                             variant="full_iteration", speedup=2.7)
    (tmp_path / f"execute-{spec.digest()}.json").write_text(json.dumps(cached.to_dict()))
    monkeypatch.setattr(shutil, "which", lambda name: None)
    got = execute_config(cfg, cache_dir=tmp_path)
    assert got.captured and got.replayed and got.loss_ok and got.speedup == 2.7


def test_illegal_config_is_refused_before_any_gpu_time(tmp_path, monkeypatch):
    import shutil

    pytest.importorskip("skill_tools.rules.engine")
    from skill_tools.config.model import CanonicalConfig
    from skill_tools.harness.engines.proxy.cli import execute_config

    calls = []
    monkeypatch.setattr(shutil, "which", lambda name: calls.append(name))
    cfg = CanonicalConfig(source="bad.yaml")
    cfg.set("model.cuda_graph_impl", "full_iteration")
    cfg.set("rng.te_rng_tracker", False)
    with pytest.raises(InputError, match="refused before any GPU time"):
        execute_config(cfg, cache_dir=tmp_path)
    assert calls == []  # the GPU was never even looked for


def test_bench_dry_run_lists_checked_variants_without_gpu(capsys, monkeypatch):
    import shutil

    from skill_tools.cli import main

    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert main(["bench", "--dry-run", "--json", "--engine", "proxy", "--workload", "moe_droppad"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert [v["name"] for v in plan["variants"]] == ["eager", "te:moe", "te:attn+moe_router+moe_preprocess"]
    assert all(v["workload"] == "moe_droppad" for v in plan["variants"])
    assert {v["capture_stream"] for v in plan["variants"]} == {"auto"}  # resolved by the worker
    assert main(["bench", "--dry-run", "--json", "--engine", "proxy", "--same-stream"]) == 0
    assert {v["capture_stream"] for v in json.loads(capsys.readouterr().out)["variants"]} == {"shared"}
    assert main(["bench", "--dry-run", "--json", "--engine", "proxy", "--capture-stream", "default"]) == 0
    assert {v["capture_stream"] for v in json.loads(capsys.readouterr().out)["variants"]} == {"default"}


def test_worker_resolves_auto_capture_stream_from_the_installed_torch(monkeypatch):
    torch = pytest.importorskip("torch")
    from skill_tools.harness.engines.proxy.gpu import resolve_capture_stream

    assert resolve_capture_stream("shared") == "shared" and resolve_capture_stream("default") == "default"
    monkeypatch.setattr(torch.autograd.graph, "set_override_stale_capture_stream", lambda *a: None, raising=False)
    assert resolve_capture_stream("auto") == "default"
    monkeypatch.delattr(torch.autograd.graph, "set_override_stale_capture_stream")
    assert resolve_capture_stream("auto") == "shared"


def test_report_names_the_resolved_capture_stream(doc):
    for v in doc["variants"]:
        v["capture_stream"] = "shared"
    assert "capture stream: shared." in markdown(doc)


def _losses_run(losses_by_name):
    def run(spec, trial, out_dir, timeout_s):
        iso = {"returncode": 0, "timed_out": False, "log_path": "x.log", "tail": "", "error_class": None,
               "evidence": None, "wall_s": 1.0}
        graphed = spec.graphed
        return {"trial": trial, "isolation": iso,
                "worker": _worker(spec.name, [2.0] * 5, losses_by_name[spec.name], captured=graphed,
                                  replayed=graphed, graphs=int(graphed))}
    return run


def test_capturable_control_is_not_the_baseline_and_loss_pairs_locate_the_difference(tmp_path):
    """The optimizer-graph drift question: eager vs capturable Adam (kernel) vs its graph (replay)."""
    losses = {"eager": [5.0, 4.9, 4.8], "eager+capturable-adam": [5.0, 4.9, 4.803],
              "full_iteration+capturable-adam": [5.0, 4.9, 4.803], "full_iteration+optimizer": [5.0, 4.9, 4.803]}
    specs = [named_variant(n) for n in losses]
    # The control listed first must still not become the baseline.
    doc = run_variants([specs[1], specs[0], *specs[2:]], trials=1, out_dir=tmp_path, progress=False,
                       run=_losses_run(losses), workload=proxy_cli.workload_record(specs[1], 1))
    by = {v["name"]: v for v in doc["variants"]}
    assert by["eager+capturable-adam"]["capturable_optimizer"] and not by["eager"]["capturable_optimizer"]
    assert by["eager+capturable-adam"]["loss_max_abs_delta"] == pytest.approx(0.003)
    assert by["eager"]["loss_max_abs_delta"] is None and by["eager"]["speedup_vs_eager"] is None
    pairs = {(p["a"], p["b"]): p["max_abs_delta"] for p in doc["loss_pairs"]}
    assert len(pairs) == 6
    assert pairs[("full_iteration+capturable-adam", "full_iteration+optimizer")] == 0.0
    assert pairs[("eager+capturable-adam", "eager")] == pytest.approx(0.003)
    text = markdown(doc)
    assert "| full_iteration+capturable-adam | full_iteration+optimizer | 0.00e+00 |" in text


def test_capturable_named_variants_build_capturable_adam_without_an_optimizer_graph():
    ctrl = named_variant("eager+capturable-adam")
    assert ctrl.impl == "none" and not ctrl.optimizer_graph and ctrl.optimizer_capturable and not ctrl.graphed
    assert named_variant("full_iteration+optimizer").optimizer_capturable
    assert not named_variant("full_iteration").optimizer_capturable
