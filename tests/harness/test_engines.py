"""The engine registry: every engine is one unit behind one protocol, and the CLI only asks it."""

from __future__ import annotations

import pytest

from skill_tools.config.era import resolve_era
from skill_tools.errors import InputError
from skill_tools.harness import bench, engines
from skill_tools.harness.engines.base import Engine
from skill_tools.harness.spec import WORKLOADS

ERA = resolve_era("0.19.2")


def test_registry_names_each_engine_once_and_the_default_first():
    assert engines.names() == tuple(engines.REGISTRY) and engines.DEFAULT == engines.names()[0]
    for name, engine in engines.REGISTRY.items():
        assert isinstance(engine, Engine) and engine.name == name and engine.summary and engine.worker
        assert engine.subject


def test_unknown_engine_is_refused_with_the_known_ones():
    with pytest.raises(InputError, match="one of megatron-lm, bridge, proxy"):
        engines.get("nemo")


@pytest.mark.parametrize("name", engines.names())
@pytest.mark.parametrize("workload", WORKLOADS)
def test_every_engines_default_variants_pass_its_own_checks(name, workload):
    """What `bench --dry-run --engine E --workload W` plans is never refused by E's own gate."""
    plan = bench.plan(bench.BenchRequest(engine=name, workload=workload, mcore_version="0.19.2"))
    assert plan.specs[0].name == "eager" and len(plan.specs) > 1
    doc = plan.dry_run()
    key = engines.get(name).arguments_key
    assert all((key in v) == (key is not None) for v in doc["variants"])


def test_engines_that_run_a_framework_loop_hand_it_arguments_and_can_rebuild():
    for engine in engines.REGISTRY.values():
        assert engine.rebuildable == engine.runs_user_loop == (engine.arguments_key is not None)
        assert engine.own_streams == engine.runs_user_loop


def test_parallel_layouts_only_where_the_engine_runs_them():
    req = dict(workload="moe", nproc=2, ep=2, mcore_version="0.19.2")
    assert bench.plan(bench.BenchRequest(engine="megatron-lm", **req)).specs[1].ep == 2
    for name in ("bridge", "proxy"):
        with pytest.raises(InputError, match="parallel layouts"):
            bench.plan(bench.BenchRequest(engine=name, **req))


def test_a_dropless_moe_answer_is_refused_as_a_workload_problem_not_a_proxy_one():
    with pytest.raises(InputError) as exc:
        bench.plan(bench.BenchRequest(engine="megatron-lm", workload="moe", impl="transformer_engine",
                                      modules=("moe",), mcore_version="0.19.2"))
    assert "moe workload" in str(exc.value) and "proxy" not in str(exc.value)


def test_records_across_the_gpu_boundary_carry_their_schema_version(tmp_path):
    import json

    from skill_tools.harness.records import (SIDECAR_SCHEMA_VERSION, RecordVersionError, Sidecar, read_sidecar)
    from skill_tools.harness.spec import VariantSpec, named_variant

    spec = named_variant("te:attn+mlp", engine="proxy")
    assert VariantSpec.from_record(spec.to_record()) == spec
    with pytest.raises(RecordVersionError):
        VariantSpec.from_record(json.dumps({**spec.to_dict(), "schema_version": 99}))
    old = {"ok": True, "captures": 2, "iterations": [{"cuda_ms": 1.5, "replays": 1, "captures": 0}]}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(old))  # written before the version field existed
    side = read_sidecar(path)
    assert side.schema_version == 0 and side.captures == 2 and side.iterations[0].replays == 1
    assert Sidecar().schema_version == SIDECAR_SCHEMA_VERSION
    path.write_text(json.dumps({**old, "schema_version": SIDECAR_SCHEMA_VERSION + 1}))
    with pytest.raises(RecordVersionError):
        read_sidecar(path)
    path.write_text("not json")
    assert read_sidecar(path) is None


def test_a_loop_setting_is_refused_by_an_engine_without_a_loop():
    """manual GC would be silently ignored by the proxy: refused before GPU time; the loop engines
    render it in their own spelling."""
    from skill_tools.harness.engines.bridge import cli as bridge_cli

    with pytest.raises(InputError, match="manual GC is a setting of a training loop"):
        bench.plan(bench.BenchRequest(engine="proxy", variants=("full_iteration+optimizer+manual-gc",),
                                      mcore_version="0.19.2"))
    spec = bench.plan(bench.BenchRequest(engine="bridge", variants=("full_iteration+optimizer+manual-gc",),
                                         mcore_version="0.19.2")).specs[-1]
    assert spec.name == "full_iteration+optimizer+manual-gc"
    overrides = bridge_cli.graph_overrides(spec, resolve_era("0.19.2"))
    assert {"train.manual_gc=true", "train.manual_gc_interval=100", "optimizer.optimizer_cuda_graph=true"} <= set(overrides)
