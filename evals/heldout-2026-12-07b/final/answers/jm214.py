# Dynamic-engine decode with CUDA graphs, megatron-core 0.19 (Python API).
#
# Q: can I use transformer_engine graphs for decode?  A: no. Only the local CudaGraphManager builds
# inference graphs. TransformerConfig allows inference_cuda_graph_scope "layer"/"block" only with
# cuda_graph_impl="local"; "transformer_engine" and "full_iteration" allow only "none":
#   AssertionError: Invalid inference CUDA graph scope 'block' for cuda_graph_impl='transformer_engine'.
# and the engine skips graph creation entirely for any impl other than "local".

from megatron.core.inference.config import InferenceConfig
from megatron.core.inference.contexts.dynamic_context import DynamicInferenceContext
from megatron.core.inference.engines.dynamic_engine import DynamicInferenceEngine
from megatron.core.tensor_parallel.random import model_parallel_cuda_manual_seed
from megatron.core.transformer import TransformerConfig

# The local graph manager asserts a graph-safe RNG tracker ("RNG tracker does not support cudagraphs!").
# Call after initialize_model_parallel (Megatron-LM's launcher does this for you with --inference-rng-tracker).
model_parallel_cuda_manual_seed(1234, inference_rng_tracker=True)

model_config = TransformerConfig(
    **model_kwargs,                      # num_layers, hidden_size, ... of your GPT
    cuda_graph_impl="local",
    inference_cuda_graph_scope="block",  # whole block per batch bucket; "layer" = per layer (default for local)
    # MoE with expert_model_parallel_size > 1:
    #   moe_pad_experts_for_cuda_graph_inference=True   (unless transformer_impl="inference_optimized")
    # FP8 with "block": transformer_impl="inference_optimized" and fp8_recipe="mxfp8"
)

inference_config = InferenceConfig(
    **inference_kwargs,                  # max_sequence_length, buffer size, ...
    num_cuda_graphs=-1,                  # REQUIRED: default None builds no graphs; -1 = auto, N = cap
    use_cuda_graphs_for_non_decode_steps=False,  # decode-only graphs; mixed prefill graphs multiply memory
)

# Build the model with model_config, wrap it, and build the TextGenerationController as usual, then:
context = DynamicInferenceContext(model_config, inference_config)
# ... wrapped model / controller construction omitted ...
engine = DynamicInferenceEngine(controller, context)   # captures the graphs here (inference_mode)

# Verify in the log:
#   "> dynamic_engine.py: building cuda graphs for" + one line per bucket
#   "> built cuda graph(s) in X sec. ..."
# Keep every forward on the engine's torch.inference_mode() path; graphs captured in inference mode
# must be replayed in it.
# Multi-node MoE (EP > 1): all ranks must build the same bucket list and the EP communicator must
# exist before capture; older builds could hang in graph warmup (Megatron-LM PRs #3033, #6412).
