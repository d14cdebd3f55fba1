"""Regression tests for catalog/MCore disagreements found by the differential: each case is
judged by the installed megatron-core's own TransformerConfig (the oracle) next to the catalog.

* ``moe_layer_recompute`` becomes selective ``moe`` recompute before the graph asserts
  (transformer_config.py l.1835-1846 @core_v0.19.0, l.1255-1266 @core_v0.16.1);
* a negative ``moe_expert_capacity_factor`` is "no capacity" (l.1660-1662 @core_v0.19.0,
  l.1106-1107 @core_v0.16.1): no false ``moe-preprocess-dtoh-sync``, and padding without a
  capacity is an error (``moe-pad-needs-capacity``);
* GTP + local graphs capturing the shared experts with ``shared_experts`` recompute under fp4
  asserts on 0.19 (l.2575-2595 @core_v0.19.0);
* on 0.16 ``moe_pad_experts_for_cuda_graph_inference`` is a Megatron-LM flag only: a fix that
  puts it in a Bridge/TransformerConfig model section is refused by 0.16.1's TransformerConfig.
"""

from __future__ import annotations

import pytest

from skill_tools.config.era import era_for, installed_version
from skill_tools.config.model import CanonicalConfig
from skill_tools.rules.engine import check

pytest.importorskip("megatron.core")

MOE = {"num_moe_experts": 4, "moe_token_dispatcher_type": "alltoall", "moe_layer_freq": 1}


def _era():
    return era_for(installed_version("megatron-core"))


def _modules_key() -> str:
    return "cuda_graph_scope" if _era().name == "legacy" else "cuda_graph_modules"


def _judged(model: dict) -> tuple[set[str], dict]:
    from skill_tools.rules.differential import compare

    agree, ids, verdict = compare(model, _era())
    assert agree, (model, sorted(ids), verdict.get("error"))
    return ids, verdict


@pytest.mark.legacy
def test_moe_layer_recompute_counts_as_selective_moe_recompute():
    # attention dropout + core_attn (the default module) recomputed inside a graphed attention
    ids, verdict = _judged({**MOE, "cuda_graph_impl": "transformer_engine", _modules_key(): ["attn"],
                            "moe_layer_recompute": True, "attention_dropout": 0.1, "hidden_dropout": 0.0})
    assert "attention-dropout-graphed-recompute" in ids and not verdict["ok"]
    # 'moe' recompute with a TE moe_router graph
    ids, verdict = _judged({**MOE, "cuda_graph_impl": "transformer_engine", _modules_key(): ["attn", "moe_router"],
                            "moe_layer_recompute": True, "attention_dropout": 0.0, "hidden_dropout": 0.0})
    assert ids == {"moe-recompute-vs-moe-router"} and not verdict["ok"]


@pytest.mark.legacy
def test_negative_capacity_factor_is_no_capacity():
    ids, verdict = _judged({**MOE, "cuda_graph_impl": "transformer_engine",
                            _modules_key(): ["moe_router", "moe_preprocess"], "moe_expert_capacity_factor": -1.0})
    assert verdict["ok"] and "moe-preprocess-dtoh-sync" not in ids
    ids, verdict = _judged({**MOE, "cuda_graph_impl": "transformer_engine", _modules_key(): ["moe_router", "moe_preprocess"],
                            "moe_expert_capacity_factor": 1.0})
    assert ids == {"moe-preprocess-dtoh-sync"} and not verdict["ok"]  # a real capacity still syncs
    ids, verdict = _judged({**MOE, "cuda_graph_impl": "transformer_engine", _modules_key(): ["moe"],
                            "moe_expert_capacity_factor": -1.0, "moe_pad_expert_input_to_capacity": True})
    assert "moe-pad-needs-capacity" in ids and verdict["rule"] == "moe-pad-needs-capacity"


def test_gtp_local_graphs_shared_experts_recompute():
    if _era().version_tuple < (0, 19, 0):
        pytest.skip("GTP exists from megatron-core 0.19")
    base = {**MOE, "cuda_graph_impl": "local", "cuda_graph_modules": ["moe_router"], "gtp_weight_remat_size": 2,
            "fp4": "e2m1", "moe_shared_expert_intermediate_size": 64, "recompute_granularity": "selective",
            "recompute_modules": ["shared_experts"], "attention_dropout": 0.0, "hidden_dropout": 0.0}
    ids, verdict = _judged(base)
    assert ids == {"gtp-local-shared-experts-recompute"} and not verdict["ok"]
    for ok in ({"recompute_modules": ["layernorm"]}, {"cuda_graph_modules": ["attn"]}, {"gtp_weight_remat_size": 1},
               {"cuda_graph_impl": "full_iteration", "cuda_graph_modules": []}, {"fp4": None}):
        ids, verdict = _judged({**base, **ok})
        assert verdict["ok"] and not ids, ok


def _bridge_local_ep_moe(version: str) -> list:
    cfg = CanonicalConfig.from_nested({"model": {**MOE, "expert_model_parallel_size": 2, "cuda_graph_impl": "local"}})
    return [f for f in check(cfg, era_for(version)) if f.rule == "inference-moe-ep-padding"]


def test_ep_padding_fix_only_where_the_option_exists():
    assert not _bridge_local_ep_moe("0.16.1")  # no such TransformerConfig field before 0.17
    found = _bridge_local_ep_moe("0.19.2")
    assert found and found[0].fix == {"model.moe_pad_experts_for_cuda_graph_inference": True}


@pytest.mark.legacy
def test_ep_padding_field_is_refused_by_016_transformer_config():
    """The premise of the test above, from the installed class itself."""
    from skill_tools.rules import oracle

    verdict = oracle.run({**MOE, "moe_pad_experts_for_cuda_graph_inference": True})
    if _era().version_tuple < (0, 17, 0):
        assert verdict["ignored_keys"] == ["moe_pad_experts_for_cuda_graph_inference"]
        import dataclasses

        from megatron.core.transformer.transformer_config import TransformerConfig

        assert "moe_pad_experts_for_cuda_graph_inference" not in {f.name for f in dataclasses.fields(TransformerConfig)}
    else:
        assert verdict["ok"] and not verdict["ignored_keys"]
