# Decode CUDA graphs with the MCore dynamic inference engine (megatron-core 0.19)
#
# Rule of thumb for 0.19:
#   cuda_graph_impl="local"              -> inference_cuda_graph_scope "layer" or "block"
#   cuda_graph_impl="transformer_engine" -> inference_cuda_graph_scope must be "none"
#   cuda_graph_impl="full_iteration"     -> inference_cuda_graph_scope must be "none"
# TE graphs (make_graphed_callables) are a *training* mechanism; the dynamic engine only
# builds inference graphs through the local CudaGraphManager path. Anything else is
# either rejected ("Invalid inference CUDA graph scope ... for cuda_graph_impl=...") or,
# with scope "none", create_cuda_graphs() simply returns and decode runs eagerly.

import torch
from megatron.core.inference.config import InferenceConfig
from megatron.core.inference.contexts.dynamic_context import DynamicInferenceContext
from megatron.core.inference.engines.dynamic_engine import DynamicInferenceEngine

# 1) model config: set BEFORE building the model so the graph managers are created
model_config_overrides = dict(
    cuda_graph_impl="local",
    inference_cuda_graph_scope="block",   # whole TransformerBlock per step, fewest launches
                                          # "layer" = one graph per layer (the default for local)
    use_te_rng_tracker=True,
    # MoE models: decode graphs need static expert shapes
    # moe_pad_experts_for_cuda_graph_inference=True,   # or transformer_impl="inference_optimized"
    # FP8 + block scope: only with transformer_impl="inference_optimized" and fp8_recipe="mxfp8"
)

# 2) engine: the graph batch-size buckets come from the inference config
inference_config = InferenceConfig(
    max_requests=256,
    num_cuda_graphs=16,      # CLI: --inference-dynamic-batching-num-cuda-graphs 16
)
context = DynamicInferenceContext(model.config, inference_config)
engine = DynamicInferenceEngine(controller, context)   # captures graphs at init

# 3) serve under inference_mode: capture in the engine runs inside torch.inference_mode(),
#    and replay must happen under the same mode. Mixing inference_mode / no_grad between
#    capture and replay gives "inference tensor" errors or eager fallback.
with torch.inference_mode():
    for req in requests:
        engine.add_request(req.id, req.prompt_tokens, req.sampling_params)
    while engine.has_unfinished_requests():
        engine.step_modern()

# Megatron-LM CLI equivalent:
#   --cuda-graph-impl local --inference-cuda-graph-scope block \
#   --inference-dynamic-batching-num-cuda-graphs 16
#
# Check it actually captured: the log must contain
#   "> built cuda graph(s) in X sec. Mempool: reserved ..."
# If it is missing, decode is eager.
#
# Caveats:
#   - PP micro-batched inference is not compatible with inference CUDA graphs.
#   - EP > 1 (MoE): all EP ranks must agree on the graph bucket each step and the EP
#     communicator must be initialised before capture; multinode MoE decode hanging in
#     "cuda graph warmup" was fixed upstream (Megatron-LM PRs #3033, #6412), so upgrade
#     if you see it.
#   - If you train the same model with cuda_graph_impl="transformer_engine", switch the
#     serving config to "local"; don't reuse the training graph setting.
