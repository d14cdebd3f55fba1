"""Memory per GPU of a model shape on a layout: weights, gradients, optimizer state, activations.

Why an estimate at all: a plan must say before any GPU time whether the user's layer shape fits
the GPU at hand, and how many layers of it do. The model is the standard accounting of
Megatron-LM training in bf16 with megatron-core's DDP and Adam:

- per parameter: bf16 weight 2 B + fp32 main grad 4 B + fp32 master weight 4 B + Adam moments 8 B
  = 18 B; the distributed optimizer divides the last 12 B by the data-parallel size;
- per layer of activations (flash attention, no recompute, per micro-batch of ``s`` tokens):
  about ``s*(14h + 4*kv_dim) + 6*s*ffn`` bytes for attention and a dense MLP; an MoE layer keeps
  ``s*k*(6*moe_ffn + 4h)`` for its k routed copies of each token, plus its shared expert;
- the output layer's logits in bf16 plus fp32 cross-entropy: ``6*s*vocab`` bytes.

Calibrated against Megatron-LM's own loop on one H200 (megatron-core 0.19.2, 4 layers, micro
batch 1, ``max allocated``): Llama-3-8B layer shape at seq 8192 ~44 GB, Qwen3-30B-A3B shape at
seq 4096 ~59 GB. ``tests/plan/test_plan_memory.py`` holds both within 10%.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from skill_tools.config.shape import Layout, ModelShape

GB = 1e9
#: bf16 weight + fp32 main grad; fp32 master weight + two fp32 Adam moments.
BYTES_WEIGHT_GRAD = 6
BYTES_OPTIMIZER = 12
#: Part of a GPU's memory a plan leaves free: CUDA context, allocator fragmentation, graph pools.
HEADROOM = 0.10


@dataclass(frozen=True)
class LayerParams:
    dense: int  # parameters split by TP (attention, dense MLP, norms)
    experts: int  # routed expert parameters, split by EP x ETP

    @property
    def total(self) -> int:
        return self.dense + self.experts


def attention_params(s: ModelShape) -> int:
    q = s.num_attention_heads * s.kv_channels
    kv = 2 * s.num_query_groups * s.kv_channels
    bias = (q + kv + s.hidden_size) if s.add_bias_linear else 0
    norms = 2 * s.hidden_size + (2 * s.kv_channels if s.qk_layernorm else 0)
    return s.hidden_size * (q + kv) + q * s.hidden_size + bias + norms


def mlp_params(hidden: int, ffn: int, gated: bool, bias: bool = False) -> int:
    up = (2 if gated else 1) * ffn
    return hidden * up + ffn * hidden + ((up + hidden) if bias else 0)


def layer_params(s: ModelShape, moe: bool) -> LayerParams:
    """Parameters of one transformer layer (a Mamba layer counts as its in/out projections)."""
    dense = attention_params(s)
    experts = 0
    if moe:
        dense += s.hidden_size * (s.num_experts or 0)  # router
        if s.moe_shared_expert_intermediate_size:
            dense += mlp_params(s.hidden_size, int(s.moe_shared_expert_intermediate_size), s.gated)
        experts = (s.num_experts or 0) * mlp_params(s.hidden_size, int(s.moe_ffn_hidden_size or s.ffn_hidden_size),
                                                    s.gated)
    else:
        dense += mlp_params(s.hidden_size, s.ffn_hidden_size, s.gated, s.add_bias_linear)
    return LayerParams(dense, experts)


def embedding_params(s: ModelShape) -> int:
    return s.vocab_size * s.hidden_size * (2 if s.untie_embeddings else 1)


def layer_activation_bytes(s: ModelShape, moe: bool, layout: Layout) -> float:
    tokens = s.seq_length * s.micro_batch_size / layout.cp
    if s.recompute_granularity == "full":
        return 2 * tokens * s.hidden_size  # only the layer's input is kept
    kv_dim = s.num_query_groups * s.kv_channels
    attn = tokens * (14 * s.hidden_size + 4 * kv_dim) / layout.tp
    if moe:
        moe_ffn = int(s.moe_ffn_hidden_size or s.ffn_hidden_size)
        mlp = tokens * s.moe_router_topk * (6 * moe_ffn + 4 * s.hidden_size) / max(1, layout.etp)
        if s.moe_shared_expert_intermediate_size:
            mlp += 6 * tokens * int(s.moe_shared_expert_intermediate_size) / layout.tp
    else:
        mlp = 6 * tokens * s.ffn_hidden_size / layout.tp
    return attn + mlp


def logits_bytes(s: ModelShape, layout: Layout) -> float:
    return 6 * s.seq_length * s.micro_batch_size / layout.cp * s.vocab_size / layout.tp


def param_bytes(params: float, dp: int, distributed_optimizer: bool) -> float:
    return params * (BYTES_WEIGHT_GRAD + BYTES_OPTIMIZER / (dp if distributed_optimizer else 1))


@dataclass(frozen=True)
class Estimate:
    """Memory per GPU (GB) for ``layers`` layers on one pipeline stage."""

    layers: int
    per_dense_layer_gb: float
    per_moe_layer_gb: float
    embedding_and_logits_gb: float
    total_gb: float
    capacity_gb: float
    budget_gb: float

    @property
    def fits(self) -> bool:
        return self.total_gb <= self.budget_gb

    def to_dict(self) -> dict:
        return {k: (round(v, 2) if isinstance(v, float) else v) for k, v in asdict(self).items()} | {"fits": self.fits}


def estimate(s: ModelShape, layout: Layout, capacity_gb: float, *, layers: int | None = None,
             moe_pattern: list[bool] | None = None, distributed_optimizer: bool = False,
             first_and_last_stage: bool = True) -> Estimate:
    """Estimate for the first ``layers`` layers of ``moe_pattern`` (default: the shape's own)."""
    pattern = moe_pattern if moe_pattern is not None else s.moe_layers()
    layers = len(pattern) if layers is None else layers
    dp = layout.dp or 1

    def layer_gb(moe: bool) -> float:
        p = layer_params(s, moe)
        weights = param_bytes(p.dense / layout.tp, dp, distributed_optimizer)
        weights += param_bytes(p.experts / (layout.ep * layout.etp), max(1, dp * layout.tp // (layout.ep * layout.etp))
                               if distributed_optimizer else 1, distributed_optimizer)
        return (weights + layer_activation_bytes(s, moe, layout)) / GB

    dense_gb, moe_gb = layer_gb(False), layer_gb(True) if s.is_moe else 0.0
    n_moe = sum(1 for x in pattern[:layers] if x)
    fixed = 0.0
    if first_and_last_stage:
        fixed = (param_bytes(embedding_params(s) / layout.tp, dp, distributed_optimizer)
                 + logits_bytes(s, layout)) / GB
    total = (layers - n_moe) * dense_gb + n_moe * moe_gb + fixed
    return Estimate(layers=layers, per_dense_layer_gb=dense_gb, per_moe_layer_gb=moe_gb,
                    embedding_and_logits_gb=fixed, total_gb=total, capacity_gb=capacity_gb,
                    budget_gb=capacity_gb * (1 - HEADROOM))
