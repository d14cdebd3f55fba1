"""Proxy workloads built with megatron-core: a dense GPT and a MoE GPT (worker side only).

Static shapes, synthetic tokens, fixed seed, bf16. The sizes span launch-bound (``tiny``:
4 layers, hidden 512, seq 256, where eager steps leave the GPU mostly idle) to compute-bound
(``large``: 8 layers, hidden 2048, seq 2048). Shapes live in :mod:`skill_tools.harness.spec`
(pure data, so the CLI can describe them without importing torch).
"""

from __future__ import annotations

from typing import Any, Iterator

import torch
from megatron.core.models.gpt import GPTModel
from megatron.core.models.gpt.gpt_layer_specs import (
    get_gpt_layer_local_spec,
    get_gpt_layer_with_transformer_engine_spec,
)
from megatron.core.transformer.transformer_config import TransformerConfig

from skill_tools.harness.spec import ProxyShape, VariantSpec


def transformer_config(spec: VariantSpec) -> TransformerConfig:
    """The TransformerConfig of a variant: the proxy's shape plus the variant's graph settings."""
    shape = spec.shape
    kwargs: dict[str, Any] = dict(
        num_layers=shape.num_layers,
        hidden_size=shape.hidden_size,
        ffn_hidden_size=shape.ffn_hidden_size,
        num_attention_heads=shape.num_attention_heads,
        bf16=True,
        params_dtype=torch.bfloat16,
        pipeline_dtype=torch.bfloat16,
        hidden_dropout=0.0,
        attention_dropout=0.0,
        add_bias_linear=False,
        gated_linear_unit=False,
        tensor_model_parallel_size=spec.tp,
        expert_model_parallel_size=spec.ep,
        sequence_parallel=spec.tp > 1,
        use_te_rng_tracker=spec.te_rng_tracker,
        cuda_graph_impl=spec.impl,
        cuda_graph_modules=list(spec.modules) if spec.impl == "transformer_engine" else [],
        cuda_graph_warmup_steps=spec.warmup_steps,
    )
    if spec.workload.startswith("moe"):
        kwargs.update(
            num_moe_experts=shape.num_experts,
            moe_router_topk=shape.moe_topk,
            moe_ffn_hidden_size=shape.moe_ffn_hidden_size,
            moe_token_dispatcher_type="alltoall",
            moe_grouped_gemm=True,
            moe_router_dtype="fp32",
            moe_aux_loss_coeff=0.0,
            moe_router_load_balancing_type="none",
        )
        if spec.workload == "moe_droppad":
            kwargs.update(moe_expert_capacity_factor=1.0, moe_pad_expert_input_to_capacity=True)
    kwargs.update(spec.extra_config)
    return TransformerConfig(**kwargs)


def build_gpt(config: TransformerConfig, spec: VariantSpec) -> GPTModel:
    """A GPTModel on the current CUDA device with the TE or the local layer spec."""
    shape = spec.shape
    moe = config.num_moe_experts
    if spec.layer_spec == "te":
        layer_spec = get_gpt_layer_with_transformer_engine_spec(num_experts=moe, moe_grouped_gemm=bool(moe))
    else:
        layer_spec = get_gpt_layer_local_spec(num_experts=moe, moe_grouped_gemm=bool(moe))
    model = GPTModel(
        config=config,
        transformer_layer_spec=layer_spec,
        vocab_size=shape.vocab_size,
        max_sequence_length=shape.seq_length,
        pre_process=True,
        post_process=True,
        parallel_output=True,
        share_embeddings_and_output_weights=False,
        position_embedding_type="rope",
    )
    return model.cuda(torch.cuda.current_device())


class SyntheticBatches:
    """A fixed cycle of token batches: every variant sees the same data in the same order."""

    def __init__(self, shape: ProxyShape, micro_batch_size: int, seed: int, distinct: int = 8):
        gen = torch.Generator(device="cpu").manual_seed(seed)
        b, s = micro_batch_size, shape.seq_length
        self.batches = []
        for _ in range(distinct):
            tokens = torch.randint(0, shape.vocab_size, (b, s + 1), generator=gen)
            self.batches.append({
                "tokens": tokens[:, :-1].contiguous().cuda(),
                "labels": tokens[:, 1:].contiguous().cuda(),
                "loss_mask": torch.ones(b, s, dtype=torch.float32).cuda(),
                "position_ids": torch.arange(s).unsqueeze(0).expand(b, s).contiguous().cuda(),
            })
        self.index = 0

    def __iter__(self) -> Iterator[dict]:
        return self

    def __next__(self) -> dict:
        batch = self.batches[self.index % len(self.batches)]
        self.index += 1
        return batch
