"""Engine ``bridge``, CLI side (no GPU): the Hydra overrides it hands to Megatron Bridge, and the
results it reads back from a log in Bridge's own format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skill_tools.config.era import resolve_era
from skill_tools.harness.engines.bridge import cli as bridge_loop
from skill_tools.harness.engines.framework_run import first_measured, train_iters
from skill_tools.harness.records import Sidecar
from skill_tools.harness.spec import named_variant
from skill_tools.rules import bridge_oracle

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "logs"
KEYS = Path(__file__).resolve().parents[2] / "skill_tools" / "data" / "config_keys.json"
COMMON = dict(engine="bridge", workload="dense", size="tiny", steps=4, warmup_steps=3, nproc=1, layer_spec="te",
              capture_stream="default", profile_steps=0)


def _spec(name: str, workload: str = "dense"):
    return named_variant(name, **{**COMMON, "workload": workload})


def _all_overrides(era_version: str) -> list[tuple[str, list[str]]]:
    era = resolve_era(era_version)
    out = []
    for workload, names in (("dense", ["eager", "full_iteration", "full_iteration:local-spelling", "te:attn+mlp"]),
                            ("moe", ["te:attn+moe_router+moe_preprocess"]), ("moe_droppad", ["te:moe"])):
        for name in names:
            s = _spec(name, workload)
            out.append((name, bridge_loop.model_overrides(s) + bridge_loop.graph_overrides(s, era)))
    return out


@pytest.mark.parametrize("era_version", ["0.19.2", "0.16.1"])
def test_overrides_parse_with_hydras_parser_as_bridge_calls_it(era_version):
    """Bridge's parse_hydra_overrides (omegaconf_utils.py) uses Hydra's OverridesParser: every rendered
    override parses as a plain assignment (no sweep), to a key of a ConfigContainer section."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    sections = json.loads(KEYS.read_text())["sections"]  # field names extracted from Bridge's config classes
    parser = OverridesParser.create()
    for name, overrides in _all_overrides(era_version):
        for parsed, text in zip(parser.parse_overrides(overrides=overrides), overrides):
            assert not parsed.is_sweep_override(), (name, text)
            section, _, field = parsed.key_or_group.partition(".")
            assert field in sections[section], (name, text)


def test_graph_overrides_per_variant():
    era = resolve_era("0.19.2")
    full = bridge_loop.graph_overrides(_spec("full_iteration"), era)
    assert "model.cuda_graph_impl=full_iteration" in full and "rerun_state_machine.check_for_nan_in_loss=false" in full
    assert "model.use_te_rng_tracker=true" in full
    legacy = bridge_loop.graph_overrides(_spec("full_iteration:local-spelling"), era)
    assert "model.cuda_graph_impl=local" in legacy and "model.cuda_graph_scope=[full_iteration]" in legacy
    assert not any(o.startswith("model.cuda_graph_modules") for o in legacy)
    te = bridge_loop.graph_overrides(_spec("te:attn+mlp"), era)
    assert "model.cuda_graph_modules=[attn,mlp]" in te
    assert bridge_loop.graph_overrides(_spec("eager"), era) == []


def test_bridge_refuses_local_per_layer_before_gpu_time():
    from skill_tools.errors import InputError

    with pytest.raises(InputError, match="bridge-local-scoped"):
        bridge_loop.refuse_illegal([_spec("local")], resolve_era("0.19.2"))
    bridge_loop.refuse_illegal([_spec("full_iteration"), _spec("full_iteration:local-spelling"),
                                _spec("te:attn+mlp")], resolve_era("0.19.2"))


def test_bench_dry_run_prints_bridge_overrides(capsys):
    from skill_tools.cli import main

    code = main(["bench", "--engine", "bridge", "--variants", "full_iteration,te:attn+mlp", "--dry-run", "--json",
                 "--mcore-version", "0.19.2"])
    plan = json.loads(capsys.readouterr().out)
    assert code == 0 and plan["engine"] == "bridge" and "megatron.bridge.training.pretrain" in plan["worker"]
    by_name = {v["name"]: v for v in plan["variants"]}
    assert "model.cuda_graph_impl=full_iteration" in by_name["full_iteration"]["bridge_overrides"]
    assert by_name["eager"]["bridge_overrides"][0] == "model.num_layers=4"


def _bridge_log(iters: int, *, graph: bool) -> str:
    """Iteration lines as megatron-bridge 0.6.2 training/utils/train_utils.py training_log builds
    them (l.1173-1225: timestamp '%Y-%m-%d %H:%M:%S', ' iteration {:8d}/{:8d} |', ' consumed samples:
    {:12d} |', ' elapsed time per iteration (ms): {:.1f} |', ' learning rate: {:.6E} |', ' global batch
    size: {:5d} |', ' {key}: {:.6E} |', ' loss scale: {:.1f} |', ' grad norm: {:.3f} |', ' number of
    skipped iterations: {:3d} |', ' number of nan iterations: {:3d} |'), then train.py's teardown print."""
    lines = ["Starting training loop at iteration 0"]
    for i in range(1, iters + 1):
        ms = 40.0 if i <= 4 else (7.0 if graph else 36.0)
        s = " [2026-12-03 05:00:{:02d}]".format(i % 60)
        s += " iteration {:8d}/{:8d} |".format(i, iters)
        s += " consumed samples: {:12d} |".format(2 * i)
        s += " elapsed time per iteration (ms): {:.1f} |".format(ms)
        s += f" learning rate: {1e-4:.6E} |"
        s += f" global batch size: {2:5d} |"
        s += " {}: {:.6E} |".format("lm loss", 9.2 - 0.01 * i)
        s += f" loss scale: {1.0:.1f} |"
        s += f" grad norm: {3.5:.3f} |"
        s += " number of skipped iterations: {:3d} |".format(0)
        s += " number of nan iterations: {:3d} |".format(0)
        lines.append(s)
    lines.append("Deleting CUDA graphs")
    return "\n".join(lines) + "\n"


def test_log_to_result_in_bridges_format(tmp_path):
    spec = _spec("full_iteration")
    total = train_iters(spec)
    log = tmp_path / "run.log"
    log.write_text(_bridge_log(total, graph=True))
    first = first_measured(spec)
    sidecar = {"ok": True, "phase": "done", "captures": 1,
               "iterations": [{"cuda_ms": 6.5, "replays": 1 if i >= first - 1 else 0, "captures": 0}
                              for i in range(total)],
               "versions": {"megatron_bridge": "0.6.2"}, "teardown": {"called": True}}
    overrides = bridge_loop.model_overrides(spec) + bridge_loop.graph_overrides(spec, resolve_era("0.19.2"))
    rec = bridge_loop.worker_from_log(spec, log, Sidecar.from_dict(sidecar), overrides)
    assert rec["engine"] == "bridge" and rec["ok"] and rec["captured"] and rec["replayed"]
    assert rec["iterations_logged"] == total and rec["raw_step_ms"] == [7.0] * spec.steps
    assert rec["teardown_observed"] and rec["bridge_version"] == "0.6.2" and rec["overrides"] == overrides
    assert rec["losses"][0] == pytest.approx(9.19)


def test_log_to_result_reads_a_public_bridge_log(tmp_path):
    """A real Bridge log (Llama 3.1 run from a public issue): its iteration line is read, its
    'Deleting CUDA graphs' teardown line is seen, and the run is not counted as complete (one
    iteration of the variant's plan, no sidecar)."""
    spec = _spec("eager")
    rec = bridge_loop.worker_from_log(spec, FIX / "bridge_llama31_gb_memory.log", None, [])
    assert rec["engine"] == "bridge" and rec["iterations_logged"] == 1 and rec["step_ms_all"] == [20289.1]
    assert rec["losses"] == [pytest.approx(12.58695)] and not rec["ok"] and rec["teardown_observed"]


@pytest.mark.skipif(not bridge_oracle.availability()[0], reason=f"Bridge: {bridge_oracle.availability()[1]}")
def test_overrides_apply_through_bridges_own_path():
    """process_config_with_overrides on the engine's recipe: the values land in the ConfigContainer."""
    from megatron.bridge.training.utils.omegaconf_utils import process_config_with_overrides

    from skill_tools.rules.bridge_recipe import tiny_gpt_recipe

    spec = _spec("full_iteration:local-spelling")
    overrides = bridge_loop.model_overrides(spec) + bridge_loop.graph_overrides(spec, resolve_era())
    cfg = process_config_with_overrides(tiny_gpt_recipe(), cli_overrides=overrides)
    assert cfg.model.num_layers == 4 and cfg.model.hidden_size == 512 and cfg.train.train_iters == train_iters(spec)
    assert cfg.model.cuda_graph_impl == "local" and cfg.rerun_state_machine.check_for_nan_in_loss is False
    assert cfg.model.use_te_rng_tracker is True


def test_results_aggregation_keeps_bridge_fields(tmp_path):
    """The runner's aggregation reads the bridge record unchanged and keeps its teardown and overrides."""
    from skill_tools.harness.results import aggregate_variant

    spec = _spec("full_iteration")
    total = train_iters(spec)
    log = tmp_path / "run.log"
    log.write_text(_bridge_log(total, graph=True))
    sidecar = {"ok": True, "captures": 1, "iterations": [{"cuda_ms": 6.5, "replays": 1, "captures": 0}] * total}
    rec = bridge_loop.worker_from_log(spec, log, Sidecar.from_dict(sidecar), ["model.cuda_graph_impl=full_iteration"])
    entry = aggregate_variant(spec.to_dict(), [{"worker": rec, "isolation": {"ok": True}}], None)
    assert entry["error_class"] is None and entry["captured"] and entry["replayed"]
    assert entry["teardown_observed"] is True and entry["overrides"] == ["model.cuda_graph_impl=full_iteration"]
    assert entry["step_ms"]["median"] == 7.0
