"""tests/unit/test_moe_drop_pad_cuda_graph_config.py

Answer to "can I capture the MoE block with CUDA graphs under drop-and-pad, and what are the
rules?", written as tests so CI keeps enforcing the rules.

Yes. Drop-and-pad (capacity factor set + moe_pad_expert_input_to_capacity=True) gives every
expert a fixed-size buffer, so shapes are static and the `moe` module can be captured with the
Transformer Engine implementation. The rules, as megatron-core enforces them
(transformer_config.py __post_init__):

  * `moe` only with drop-and-pad:      "moe cuda graph is only supported with drop-padding MoE."
  * `moe` and `moe_router` are mutually exclusive:
                                       "cuda_graph_modules must not contain both moe and moe_router."
    (and since `moe_preprocess` requires `moe_router`, it is out too)
  * `mlp` only where dense layers exist.
  * graph-safe RNG: use_te_rng_tracker=True (Bridge also needs rng.te_rng_tracker=True).

Key names: megatron-core >= 0.18 uses `cuda_graph_modules`; on 0.16/0.17 put the same list in
`cuda_graph_scope`.

Bridge override that matches these tests:

    cfg.model.moe_expert_capacity_factor = 1.0
    cfg.model.moe_pad_expert_input_to_capacity = True
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_modules = ["attn", "moe"]
    cfg.model.cuda_graph_scope = None        # recipes set the deprecated key to "full"
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
"""

import pytest

from megatron.core.transformer.enums import CudaGraphModule
from megatron.core.transformer.transformer_config import TransformerConfig


def _moe_cfg(**overrides):
    base = dict(
        num_layers=4,
        hidden_size=256,
        num_attention_heads=4,
        num_moe_experts=8,
        moe_router_topk=2,
        moe_token_dispatcher_type="alltoall",
        moe_expert_capacity_factor=1.0,
        moe_pad_expert_input_to_capacity=True,
        cuda_graph_impl="transformer_engine",
        cuda_graph_modules=["attn", "moe"],
        cuda_graph_warmup_steps=3,
        use_te_rng_tracker=True,
    )
    base.update(overrides)
    return TransformerConfig(**base)


def test_drop_pad_allows_moe_scope():
    cfg = _moe_cfg()
    assert cfg.cuda_graph_modules == [CudaGraphModule.attn, CudaGraphModule.moe]


def test_moe_scope_rejected_without_padding():
    with pytest.raises(AssertionError, match="only supported with drop-padding MoE"):
        _moe_cfg(moe_pad_expert_input_to_capacity=False)


def test_moe_scope_rejected_when_dropless():
    with pytest.raises(AssertionError, match="only supported with drop-padding MoE"):
        _moe_cfg(moe_expert_capacity_factor=None, moe_pad_expert_input_to_capacity=False)


def test_moe_and_moe_router_are_mutually_exclusive():
    with pytest.raises(AssertionError, match="must not contain both moe and moe_router"):
        _moe_cfg(cuda_graph_modules=["attn", "moe_router", "moe"])


def test_padding_requires_capacity_factor():
    with pytest.raises(ValueError, match="moe_expert_capacity_factor must be set"):
        _moe_cfg(moe_expert_capacity_factor=None)


def test_mlp_scope_rejected_on_all_moe_model():
    with pytest.raises(AssertionError, match="mlp cuda graph is only supported for dense layers"):
        _moe_cfg(cuda_graph_modules=["attn", "mlp"])
