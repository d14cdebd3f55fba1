"""The canonical config model: nested <-> flat, enum/tuple values become plain data."""

from __future__ import annotations

import enum

import pytest

from skill_tools.config.model import CanonicalConfig, Location, as_name_list, plain

pytestmark = pytest.mark.legacy


class Scope(enum.Enum):
    attn = 1
    moe_router = 2


def test_from_nested_skips_targets_and_flattens_sections():
    cfg = CanonicalConfig.from_nested({
        "_target_": "megatron.bridge.training.config.ConfigContainer",
        "model": {"_target_": "x.GPTModelProvider", "cuda_graph_impl": "transformer_engine",
                  "cuda_graph_scope": ["attn"]},
        "dataset": {"packed_sequence_specs": {"_target_": "y", "pad_cu_seqlens": True}},
    })
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine"
    assert cfg.get("dataset.packed_sequence_specs.pad_cu_seqlens") is True
    assert not any("_target_" in k for k in cfg.values)
    assert cfg.section("model") == {"cuda_graph_impl": "transformer_engine", "cuda_graph_scope": ["attn"]}
    assert cfg.to_nested()["model"]["cuda_graph_scope"] == ["attn"]


def test_flat_transformer_config_dict_reads_as_model_section():
    cfg = CanonicalConfig.from_nested({"num_layers": 2, "cuda_graph_impl": "local"}, flat_section="model")
    assert cfg.get("model.num_layers") == 2


def test_set_records_location_and_plain_values():
    cfg = CanonicalConfig(source="cfg.yaml")
    cfg.set("model.cuda_graph_modules", (Scope.attn, Scope.moe_router), Location("cfg.yaml", 7))
    assert cfg.get("model.cuda_graph_modules") == ["attn", "moe_router"]
    assert str(cfg.location("model.cuda_graph_modules")) == "cfg.yaml:7"
    assert str(cfg.location("model.other")) == "cfg.yaml"
    cfg.unset("model.cuda_graph_modules")
    assert not cfg.has("model.cuda_graph_modules")


def test_copy_is_deep():
    cfg = CanonicalConfig.from_nested({"model": {"cuda_graph_scope": ["attn"]}})
    other = cfg.copy()
    other.values["model.cuda_graph_scope"].append("mlp")
    assert cfg.get("model.cuda_graph_scope") == ["attn"]


@pytest.mark.parametrize("value, expected", [
    (None, []), ("", []), ("full", []), (["full"], []), ("attn,mlp", ["attn", "mlp"]),
    (["attn", "moe_router"], ["attn", "moe_router"]), (Scope.attn, ["attn"]),
    ([Scope.attn, "CudaGraphScope.moe_router"], ["attn", "moe_router"]), (["attn,mlp"], ["attn", "mlp"]),
])
def test_as_name_list(value, expected):
    assert as_name_list(value) == expected


def test_plain_converts_nested_containers():
    assert plain({"a": (Scope.attn, 1)}) == {"a": ["attn", 1]}


def test_read_intent_full_iteration_scope_with_impl_none_is_era_dependent():
    from skill_tools.config.era import era_for, read_intent

    cfg = CanonicalConfig.from_nested({"model": {"cuda_graph_impl": "none", "cuda_graph_scope": ["full_iteration"]}})
    # 0.18+ migrates the deprecated scope to cuda_graph_impl="full_iteration" whatever the impl was
    assert read_intent(cfg, era=era_for("0.19.2")).impl == "full_iteration"
    assert read_intent(cfg).impl == "full_iteration"
    # 0.16-0.17 read the scope only for the local impl: graphs stay off
    assert read_intent(cfg, era=era_for("0.16.1")).impl == "none"
