"""Spec mapping: any era's spelling maps onto the proxy; what cannot run says why."""

from __future__ import annotations

import pytest

from skill_tools.config.model import CanonicalConfig
from skill_tools.errors import InputError
from skill_tools.harness.spec import (
    NAMED, VariantSpec, config_of, named_variant, proxy_notes, workload_problem, spec_from_config,
)


def _cfg(**values) -> CanonicalConfig:
    cfg = CanonicalConfig(source="test.yaml")
    for k, v in values.items():
        cfg.set(k.replace("__", "."), v)
    return cfg


def test_legacy_full_iteration_spelling_maps_to_full_iteration():
    spec = spec_from_config(_cfg(model__cuda_graph_impl="local", model__cuda_graph_scope=["full_iteration"]))
    assert spec.impl == "full_iteration" and spec.modules == () and spec.name == "full_iteration"


def test_current_te_modules_map_to_te_scope():
    spec = spec_from_config(_cfg(model__cuda_graph_impl="transformer_engine",
                                 model__cuda_graph_modules=["attn", "moe_router", "moe_preprocess"]),
                            workload="moe")
    assert spec.impl == "transformer_engine"
    assert spec.modules == ("attn", "moe_router", "moe_preprocess")
    assert spec.name == "te:attn+moe_router+moe_preprocess"


def test_deprecated_enable_cuda_graph_is_local_and_optimizer_graph_is_read():
    spec = spec_from_config(_cfg(model__enable_cuda_graph=True, optimizer__optimizer_cuda_graph=True,
                                 model__cuda_graph_warmup_steps=5))
    assert spec.impl == "local" and spec.optimizer_graph and spec.warmup_steps == 5


def test_eager_config_maps_to_eager():
    assert spec_from_config(_cfg(model__cuda_graph_impl="none")).impl == "none"


@pytest.mark.parametrize("impl,modules,workload,needle", [
    ("transformer_engine", ("moe_router",), "dense", "MoE layers"),
    ("transformer_engine", ("moe",), "moe", "drop-and-pad"),
    ("transformer_engine", ("mamba",), "dense", "Mamba"),
    ("transformer_engine", ("mlp",), "moe", "MoE layer"),
    ("transformer_engine", ("bogus",), "dense", "unknown scope"),
    ("inline", (), "dense", "not a training graph"),
])
def test_unrunnable_says_why(impl, modules, workload, needle):
    problem = workload_problem(impl, modules, workload)
    assert problem is not None and needle in problem.reason


def test_unrunnable_config_raises_input_error_with_reason():
    with pytest.raises(InputError, match="drop-and-pad"):
        spec_from_config(_cfg(model__cuda_graph_impl="transformer_engine", model__cuda_graph_modules=["moe"]),
                         workload="moe")


def test_drop_and_pad_moe_scope_runs():
    assert workload_problem("transformer_engine", ("moe",), "moe_droppad") is None


def test_spec_json_roundtrip_and_digest_changes_with_plan():
    spec = named_variant("te:attn+mlp", workload="dense", size="small", steps=7)
    again = VariantSpec.from_dict(spec.to_dict())
    assert again == spec and again.digest() == spec.digest()
    assert named_variant("te:attn+mlp", steps=8).digest() != named_variant("te:attn+mlp", steps=7).digest()


def test_config_of_is_era_correct():
    from skill_tools.config.era import era_for

    spec = named_variant("full_iteration")
    current = config_of(spec, era_for("0.19.2"))
    legacy = config_of(spec, era_for("0.16.1"))
    assert current.get("model.cuda_graph_impl") == "full_iteration"
    assert legacy.get("model.cuda_graph_impl") == "local"
    assert legacy.get("model.cuda_graph_scope") == ["full_iteration"]
    assert current.get("rng.te_rng_tracker") is True


def test_every_named_variant_runs_somewhere():
    for name in NAMED:
        spec = named_variant(name)
        assert any(workload_problem(spec.impl, spec.modules, w) is None for w in ("dense", "moe", "moe_droppad")), name


def test_proxy_notes_name_what_the_proxy_does_not_reproduce():
    notes = proxy_notes(_cfg(model__fp8="hybrid", model__pipeline_model_parallel_size=4))
    assert any("fp8" in n for n in notes) and any("pipeline" in n for n in notes)
