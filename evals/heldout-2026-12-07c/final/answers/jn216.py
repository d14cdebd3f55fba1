"""Decode CUDA graphs for a GPT model served by MCore's dynamic inference engine.

megatron-core 0.19.

Short version:
  * Inference graphs are built by MCore's own graph manager, so use
    cuda_graph_impl="local". transformer_engine (and full_iteration) only allow
    inference_cuda_graph_scope="none": TE's make_graphed_callables takes tensor-only
    inputs and the decode forward passes an inference_context. Asking for TE +
    layer/block fails with "Invalid inference CUDA graph scope ... for
    cuda_graph_impl=transformer_engine".
  * inference_cuda_graph_scope: "layer" (default for local) = one graph per layer per
    batch bucket; "block" = one graph per bucket around the whole decoder, fewer
    launches. Start with "block".
  * The engine captures when it's constructed and replays in step(); don't wrap either
    one in a different torch.inference_mode setting in your serving code.
"""

from megatron.core.inference.config import InferenceConfig
from megatron.core.inference.contexts.dynamic_context import DynamicInferenceContext
from megatron.core.inference.engines.dynamic_engine import DynamicInferenceEngine
from megatron.core.inference.model_inference_wrappers.gpt.gpt_inference_wrapper import (
    GPTInferenceWrapper,
)
from megatron.core.inference.text_generation_controllers.text_generation_controller import (
    TextGenerationController,
)


def build_engine(model, tokenizer):
    cfg = model.config
    # These must be set *before* the model is built (they decide whether layers / the
    # block get a CudaGraphManager). Shown here for reference:
    assert cfg.cuda_graph_impl == "local"
    assert str(cfg.inference_cuda_graph_scope).endswith("block")

    inference_config = InferenceConfig(
        max_requests=128,
        buffer_size_gb=20,
        max_sequence_length=4096,
        # Graph buckets: the engine captures a set of decode batch sizes (128, 64, 32, ...
        # down to 1) and pads each step up to the nearest captured bucket. The default
        # bucket count (16) is plenty for decode; only raise num_cuda_graphs if you
        # serve a wide range of batch sizes.
        use_cuda_graphs_for_non_decode_steps=False,  # decode-only graphs: prefill stays eager
    )

    context = DynamicInferenceContext(cfg, inference_config)
    wrapped = GPTInferenceWrapper(model, context)
    controller = TextGenerationController(wrapped, tokenizer)
    engine = DynamicInferenceEngine(controller, context)  # captures the decode graphs here
    return engine


# Model-side config (TransformerConfig / launcher flags):
#   cuda_graph_impl="local", inference_cuda_graph_scope="block", use_te_rng_tracker=True
#   Megatron-LM: --cuda-graph-impl local --inference-cuda-graph-scope block --te-rng-tracker
#                --decode-only-cuda-graphs
#
# MoE notes: with local graphs and EP>1 set moe_pad_experts_for_cuda_graph_inference=True
# (not allowed with transformer_impl="inference_optimized", which has its own static path).
# FP8 + block scope requires transformer_impl="inference_optimized" and fp8_recipe="mxfp8".
#
# Check the log after engine construction:
#   > dynamic_engine.py: building cuda graphs for
#   ...
#   > built cuda graph(s) in X sec. ...
