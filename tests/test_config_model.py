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
