"""Decode CUDA graphs with the MCore dynamic inference engine (megatron-core 0.19).

Answer first:
  * Use the MCore-native implementation: cuda_graph_impl="local", with
    inference_cuda_graph_scope="layer" (one graph per TransformerLayer/MambaLayer) or
    "block" (the whole TransformerBlock/HybridBlock as one graph; fewest launches, usually
    the best decode latency).
  * transformer_engine graphs do NOT serve inference. In 0.19 the allowed inference scopes
    per impl are:
        none               -> {none}
        local              -> {layer, block}
        transformer_engine -> {none}
        full_iteration     -> {none}
    Anything else fails TransformerConfig validation with
    "Invalid inference CUDA graph scope ... for cuda_graph_impl=...". TE graphs are a
    training-time per-layer capture (make_graphed_callables). Their replay path also rejects
    an inference_context ("For inference cuda graph, please use cuda_graph_impl=local
    instead.").
  * If you leave inference_cuda_graph_scope unset, local defaults to "layer" and every other
    impl to "none".

Megatron-LM launcher equivalent:
    --cuda-graph-impl local --inference-cuda-graph-scope block \
    --inference-dynamic-batching-num-cuda-graphs 16
"""

import torch

from megatron.core.transformer.cuda_graph_config import ALLOWED_INFERENCE_SCOPES
from megatron.core.transformer.enums import InferenceCudaGraphScope


def apply_decode_graph_overrides(model_config, scope: str = "block"):
    """Set before the model is built (the CUDA graph managers are attached at init)."""
    model_config.cuda_graph_impl = "local"
    model_config.inference_cuda_graph_scope = InferenceCudaGraphScope[scope]

    # Same rule TransformerConfig enforces; fail early with a readable message.
    allowed = ALLOWED_INFERENCE_SCOPES[model_config.cuda_graph_impl]
    assert model_config.inference_cuda_graph_scope in allowed, (
        f"{scope!r} not allowed for cuda_graph_impl={model_config.cuda_graph_impl!r}: {allowed}"
    )

    # MoE with expert parallelism: decode shapes must be static (no D2H sync in routing).
    # The text-generation controller asserts this for local graphs + EP>1 unless
    # transformer_impl == "inference_optimized".
    if (getattr(model_config, "num_moe_experts", None) or 0) > 1 and \
            model_config.expert_model_parallel_size > 1 and \
            model_config.transformer_impl != "inference_optimized":
        model_config.moe_pad_experts_for_cuda_graph_inference = True

    # FP8 + block scope: only with transformer_impl="inference_optimized" and the mxfp8
    # recipe (Megatron-LM argument validation). Otherwise use "layer" or BF16.
    if model_config.fp8 is not None and scope == "block":
        assert model_config.transformer_impl == "inference_optimized", \
            "fp8 + block inference graphs need transformer_impl='inference_optimized'"
        assert model_config.fp8_recipe == "mxfp8", \
            "fp8 + block inference graphs need fp8_recipe='mxfp8'"
    return model_config


# Engine side
# -----------
# InferenceConfig(num_cuda_graphs=16, ...) controls how many batch-size buckets get captured.
# DynamicInferenceEngine(controller, context) calls create_cuda_graphs() in its constructor:
# it runs a warmup forward for each bucket inside torch.inference_mode() and logs
#     "> built cuda graph(s) in X sec. Mempool: reserved ..., allocated ..."
# If that line is missing, you're running eager.
#
# Capture and replay must see the same autograd mode. Drive the engine under
# torch.inference_mode() (like the example script's @torch.inference_mode() main),
# not under torch.no_grad() in one place and inference_mode in another:

@torch.inference_mode()
def serve(engine, prompts, sampling_params):
    return engine.generate(prompts, sampling_params)


# Other constraints worth knowing
# -------------------------------
# * Pipeline-parallel microbatched inference (--inference-batch-times-seqlen-threshold > -1)
#   is incompatible with CUDA graphs.
# * EP > 1: all EP ranks must agree on the graph bucket each step, and the EP communicator
#   must be initialised before capture. If multi-node MoE decode hangs during
#   "cuda graph warmup", upgrade first (fixes landed upstream for exactly that).
# * Measure decode tokens/s against --cuda-graph-impl none on the same request mix; ignore
#   the engine start-up (capture) time in the comparison.
