# Dynamic-engine decode with CUDA graphs on megatron-core 0.19
#
# Q1: how?  -> cuda_graph_impl="local" + inference_cuda_graph_scope in {"layer","block"}
# Q2: TE graphs for decode? -> no. ALLOWED_INFERENCE_SCOPES in
#     megatron/core/transformer/cuda_graph_config.py only allows scope "none" for
#     "transformer_engine" (and "full_iteration"); anything else fails with
#     "Invalid inference CUDA graph scope 'layer' for cuda_graph_impl='transformer_engine'."
#     TE graphs are a training feature (make_graphed_callables per microbatch).

import torch
from megatron.core.transformer import TransformerConfig

config = TransformerConfig(
    num_layers=32, hidden_size=4096, num_attention_heads=32,
    bf16=True,
    cuda_graph_impl="local",
    inference_cuda_graph_scope="block",   # whole TransformerBlock per bucket; "layer" = per layer
    # MoE models only: static shapes for decode
    # moe_pad_experts_for_cuda_graph_inference=True,   (or transformer_impl="inference_optimized")
    # FP8 + block scope: transformer_impl="inference_optimized"
)

# ... build model / InferenceWrapper / DynamicInferenceContext / DynamicInferenceEngine ...
# The engine captures graphs for its batch-size buckets during warmup.

with torch.inference_mode():          # capture and replay under the SAME inference_mode
    engine = build_engine(config)      # your helper; triggers graph warmup/capture
    for req in requests:
        engine.add_request(req)
    while engine.has_unfinished_requests():
        engine.step()

# Checks / gotchas
# - log should show "> built cuda graph(s) in X sec"; if not, you are running eager.
# - PP-microbatched inference is not compatible with inference CUDA graphs; keep PP=1 for serving.
# - EP > 1 MoE: all EP ranks must agree on the graph bucket per step and the EP
#   communicator must be initialised before capture (Megatron-LM PRs #3033, #6412);
#   if multinode MoE decode hangs in graph warmup, upgrade.
# - On 0.16/0.17 there is no inference_cuda_graph_scope: per-layer = local impl default,
#   block-level = cuda_graph_scope=["full_iteration_inference"] (0.17 only).
