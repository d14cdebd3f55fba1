"""Engine megatron-lm, CPU side: the flags it hands Megatron-LM's parser, and the results it
derives from the real runs' logs (Megatron-LM's own loop on an H200, committed under
benchmarks/results/2026-12-03-training-megatron-lm-*)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import validated_megatron_lm_args

from skill_tools.config.era import resolve_era
from skill_tools.errors import InputError
from skill_tools.harness.engines.framework_run import data_parallel, train_iters
from skill_tools.harness.engines.megatron_lm import cli as real_loop
from skill_tools.harness.rebuild import rebuild
from skill_tools.harness.spec import named_variant

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
#: Results of the real-loop engines (Megatron-LM's and Megatron Bridge's own pretrain), logs beside them.
REAL_RUNS = sorted([*RESULTS.glob("2026-12-03-training-megatron-lm-*.json"),
                    *RESULTS.glob("2026-12-03-training-bridge-*.json")])
CURRENT = resolve_era("0.19.2")
LEGACY = resolve_era("0.16.1")

VARIANTS = [("dense", n) for n in ("eager", "full_iteration", "full_iteration+optimizer",
                                   "full_iteration+optimizer+manual-gc", "local", "te:layer", "te:attn+mlp")] + [
    ("moe", "te:attn+moe_router+moe_preprocess"), ("moe", "full_iteration"), ("moe_droppad", "te:moe")]


def _flags(workload: str, name: str, era=CURRENT) -> list[str]:
    spec = named_variant(name, engine="megatron-lm", workload=workload)
    return real_loop.run_flags(spec, era)



@pytest.mark.parametrize("workload,name", VARIANTS)
def test_every_variant_is_accepted_by_megatron_lms_parser(real_mlm, workload, name):
    args, unknown = real_mlm.parse_known_args(_flags(workload, name))
    assert unknown == []
    spec = named_variant(name, engine="megatron-lm", workload=workload)
    assert args.cuda_graph_impl == spec.impl
    assert [m.name if hasattr(m, "name") else m for m in (args.cuda_graph_modules or [])] == list(spec.modules)
    assert args.optimizer_cuda_graph == spec.optimizer_graph
    assert args.manual_gc == spec.manual_gc and (not spec.manual_gc or args.manual_gc_interval == 100)
    if spec.impl != "none":
        assert args.te_rng_tracker  # SKILL.md's flags, as users copy them


@pytest.mark.parametrize("name", ["eager", "full_iteration", "full_iteration+optimizer",
                                  "full_iteration+optimizer+manual-gc", "local", "te:layer", "te:attn+mlp"])
def test_dense_variants_pass_megatron_lms_full_validation(real_mlm, monkeypatch, name):
    """parse_and_validate_args: every assert Megatron-LM applies before it builds the model."""
    args, _ = validated_megatron_lm_args(monkeypatch, _flags("dense", name))
    assert args.train_iters == train_iters(named_variant(name, engine="megatron-lm"))


def test_legacy_flags_use_the_016_spelling():
    flags = _flags("dense", "full_iteration", LEGACY)
    assert flags[-6:-2] == ["--cuda-graph-impl", "local", "--cuda-graph-scope", "full_iteration"]
    te = _flags("dense", "te:attn+mlp", LEGACY)
    assert "--cuda-graph-scope" in te and "--cuda-graph-modules" not in te


def test_016_without_a_checkout_names_the_tag_to_check_out():
    with pytest.raises(InputError) as err:
        real_loop.locate_training(None, LEGACY)
    assert "core_v0.16.1" in str(err.value) + (err.value.hint or "")


def test_a_checkout_without_megatron_training_is_refused(tmp_path):
    with pytest.raises(InputError) as err:
        real_loop.locate_training(tmp_path, LEGACY)
    assert "megatron/training/training.py" in str(err.value)
    (tmp_path / "megatron" / "training").mkdir(parents=True)
    (tmp_path / "megatron" / "training" / "training.py").write_text("")
    training = real_loop.locate_training(tmp_path, LEGACY)
    assert training.source == "checkout" and training.env()["PYTHONPATH"].startswith(str(tmp_path))


def test_bench_dry_run_prints_the_megatron_lm_command_lines(capsys):
    from skill_tools.cli import main

    assert main(["bench", "--dry-run", "--json", "--variants", "eager,full_iteration"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["engine"] == "megatron-lm"
    full = next(v for v in plan["variants"] if v["name"] == "full_iteration")
    assert full["megatron_lm_flags"][-4:] == ["--cuda-graph-impl", "full_iteration", "--te-rng-tracker",
                                             "--no-check-for-nan-in-loss-and-grad"]


# --------------------------------------------------------------------------------------------
# Results derived from the real runs' logs
# --------------------------------------------------------------------------------------------


def test_the_real_runs_are_committed():
    assert len(REAL_RUNS) >= 7, REAL_RUNS


@pytest.mark.parametrize("path", REAL_RUNS, ids=lambda p: p.stem)
def test_committed_results_follow_from_the_committed_logs(path, tmp_path):
    """Every number of a committed results file is derived again from its logs and sidecars."""
    committed = json.loads(path.read_text())
    again = rebuild(path)
    for old, new in zip(committed["variants"], again["variants"], strict=True):
        assert new["name"] == old["name"]
        for key in ("captured", "replayed", "graphs_count", "error_class", "speedup_vs_eager",
                    "loss_max_abs_delta", "step_ms", "capture_iteration"):
            assert new.get(key) == old.get(key), (old["name"], key)


def _variant(stem: str, name: str) -> dict:
    doc = json.loads((RESULTS / f"{stem}.json").read_text())
    return next(v for v in doc["variants"] if v["name"] == name)


def test_real_loop_full_iteration_captures_once_and_replays_every_step():
    full = _variant("2026-12-03-training-megatron-lm-h200-dense-tiny", "full_iteration")
    assert full["captured"] and full["replayed"] and full["graphs_count"] == 1
    assert full["capture_iteration"] == 4  # --cuda-graph-warmup-steps 3, then capture
    assert full["loss_max_abs_delta"] == 0.0
    assert full["graph_flags"] == ["--cuda-graph-impl", "full_iteration", "--te-rng-tracker",
                                   "--no-check-for-nan-in-loss-and-grad"]


def test_016_full_iteration_fails_at_capture_on_a_pageable_copy():
    """megatron-core 0.16.1 + Megatron-LM core_v0.16.1: local + full_iteration scope fails in capture."""
    full = _variant("2026-12-03-training-megatron-lm-0.16.1-h200-dense-tiny", "full_iteration")
    assert full["error_class"] == "mlm-016-full-iteration-cu-seqlens-broadcast"
    assert "unless the CPU tensor is pinned" in full["evidence"]
    assert full["graph_flags"][:4] == ["--cuda-graph-impl", "local", "--cuda-graph-scope", "full_iteration"]
    te = _variant("2026-12-03-training-megatron-lm-0.16.1-h200-dense-tiny", "te:attn+mlp")
    assert te["captured"] and te["replayed"] and te["loss_max_abs_delta"] == 0.0


def test_dropless_moe_full_iteration_fails_where_scoped_te_graphs_run():
    stem = "2026-12-03-training-megatron-lm-h200-moe-tiny"
    assert _variant(stem, "full_iteration")["error_class"] is not None
    scoped = _variant(stem, "te:attn+moe_router+moe_preprocess")
    assert scoped["captured"] and scoped["replayed"] and scoped["loss_max_abs_delta"] == 0.0
    droppad = _variant("2026-12-03-training-megatron-lm-h200-moe_droppad-tiny", "full_iteration")
    assert droppad["captured"] and droppad["replayed"] and droppad["loss_max_abs_delta"] == 0.0


def test_rebuild_refuses_proxy_results():
    proxy = RESULTS / "2026-12-02-training-h200-dense-tiny.json"
    with pytest.raises(InputError):
        rebuild(proxy)


def test_rebuild_cli_names_a_missing_file(capsys):
    from skill_tools.cli import main

    assert main(["bench", "--rebuild", os.devnull + "-missing.json"]) == 2


# --------------------------------------------------------------------------------------------
# Parallel layouts (rendered and judged here; run only where several GPUs are lent)
# --------------------------------------------------------------------------------------------

LAYOUTS = [
    dict(nproc=2, tp=2),
    dict(nproc=2, pp=2, num_microbatches=4),
    dict(nproc=2, pp=2, vpp_layers=1, num_microbatches=4),
    dict(nproc=4, tp=2, pp=2, num_microbatches=2),
]


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda d: "-".join(f"{k}{v}" for k, v in d.items()))
@pytest.mark.parametrize("name", ["full_iteration", "te:attn+mlp"])
def test_parallel_layouts_pass_megatron_lms_full_validation(real_mlm, monkeypatch, layout, name):
    """World size, TP, PP and virtual stages as Megatron-LM's validate_args sees them."""
    spec = named_variant(name, engine="megatron-lm", **layout)
    assert real_loop.layout_problem("dense", "tiny", layout["nproc"], layout.get("num_microbatches", 1),
                                    tp=spec.tp, pp=spec.pp, vpp_layers=spec.vpp_layers) is None
    flags = real_loop.run_flags(spec, CURRENT)
    args, calculator = validated_megatron_lm_args(monkeypatch, flags, layout["nproc"])
    assert (args.tensor_model_parallel_size, args.pipeline_model_parallel_size) == (spec.tp, spec.pp)
    assert args.data_parallel_size == data_parallel(spec)
    assert calculator == spec.num_microbatches
    if spec.vpp_layers:
        assert args.virtual_pipeline_model_parallel_size == 4 // (spec.pp * spec.vpp_layers)


@pytest.mark.parametrize("args,message", [
    (dict(workload="dense", nproc=1, tp=2), "not a multiple of tp*pp"),
    (dict(workload="dense", nproc=2, ep=2), "needs an MoE workload"),
    (dict(workload="moe", nproc=4, pp=2, ep=4), "must divide"),
    (dict(workload="dense", nproc=3, pp=3), "not divisible into 3 stages"),
    (dict(workload="dense", nproc=2, vpp_layers=1), "needs --pp > 1"),
    (dict(workload="dense", nproc=2, pp=2, vpp_layers=1, microbatches=3), "multiple of --pp"),
])
def test_layouts_megatron_lm_would_refuse_are_refused_before_the_gpu(args, message):
    kw = {k: v for k, v in args.items() if k not in ("workload", "nproc", "microbatches")}
    problem = real_loop.layout_problem(args["workload"], "tiny", args["nproc"], args.get("microbatches", 1), **kw)
    assert problem is not None and message in problem[0]


def test_bench_refuses_what_the_validator_rejects_in_the_flags_it_would_run(capsys):
    """Judged on the Megatron-LM flags themselves, so Megatron-LM-only rules apply."""
    from skill_tools.cli import main

    assert main(["bench", "--dry-run", "--workload", "moe", "--variants", "eager,full_iteration"]) == 2
    assert "full-iteration-dropless-moe" in capsys.readouterr().err
    assert main(["bench", "--dry-run", "--json", "--workload", "moe", "--variants", "eager,full_iteration",
                 "--run-rejected"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert any("full-iteration-dropless-moe" in n for n in plan["notes"])


def test_the_engine_runs_megatron_lms_pretrain_until_megatron_itself_refuses_the_cpu(real_mlm, tmp_path):
    """The GPU-side engine end to end on a CPU: its flags parse, Megatron-LM's pretrain() is entered
    and its own `assert torch.cuda.is_available()` ends the run; the sidecar records that, not a crash."""
    import subprocess
    import sys

    import torch

    if torch.cuda.is_available():
        pytest.skip("a GPU is present: the GPU tests run the engine for real")
    sidecar = tmp_path / "sidecar.json"
    flags = _flags("dense", "eager")
    env = {**os.environ, "RANK": "0", "WORLD_SIZE": "1", "LOCAL_RANK": "0", "MASTER_ADDR": "127.0.0.1",
           "MASTER_PORT": "29555"}
    proc = subprocess.run([sys.executable, "-m", real_loop.ENGINE_MODULE, "--sidecar", str(sidecar), "--", *flags],
                          capture_output=True, text=True, env=env, timeout=600)
    state = json.loads(sidecar.read_text())
    assert proc.returncode == 1 and state["ok"] is False and state["phase"] == "pretrain"
    assert state["exception"] == "AssertionError: Megatron requires CUDA."
    assert state["versions"]["megatron_training_from"] == "site-packages"  # a folder name, not a host path


def test_logs_shows_the_capture_lines_of_a_real_run_not_its_argument_dump(capsys):
    """A captured run leads with its capture messages (near the end of a 1000-line log), not with
    the legacy enable_cuda_graph=False of Megatron-LM's argument dump; an eager run shows those."""
    from skill_tools.cli import main

    logs = RESULTS / "2026-12-03-training-megatron-lm-h200-dense-tiny" / "logs"
    main(["logs", str(logs / "full_iteration-t0.log.gz")])
    out = capsys.readouterr().out
    assert "(captured): INFO:megatron.core.full_cuda_graph:CUDA graph capture done for training!!!" in out
    assert "(disabled)" not in out
    main(["logs", str(logs / "eager-t0.log.gz")])
    assert "(disabled): cuda_graph_impl" in capsys.readouterr().out
