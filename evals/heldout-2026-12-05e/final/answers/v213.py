"""Decode CUDA graphs for the MCore dynamic inference engine (megatron-core 0.19).

Answer in one line: use cuda_graph_impl="local" with inference_cuda_graph_scope="block" (or "layer"),
give the engine a graph count, and don't use transformer_engine graphs for serving.

* Inference graphs are built only by MCore's local CUDA-graph manager. In 0.18+ the allowed inference
  scopes per impl are (megatron/core/transformer/cuda_graph_config.py, ALLOWED_INFERENCE_SCOPES):
      none               -> {none}
      local              -> {layer, block}
      transformer_engine -> {none}
      full_iteration     -> {none}
  Anything else fails in TransformerConfig with
  "Invalid inference CUDA graph scope '<scope>' for cuda_graph_impl='<impl>'."
  So transformer_engine (and full_iteration) are training-side graphs; decode can't use them.
* "layer": each TransformerLayer owns one graph per batch bucket (Python still runs between layers).
  "block": the TransformerBlock owns one graph per bucket: fewer launches and fewer graphs.
  Start with block.
* The count matters: InferenceConfig.num_cuda_graphs defaults to None = no graphs at all.
"""
import torch

from megatron.core.inference.config import InferenceConfig
from megatron.core.inference.contexts.dynamic_context import DynamicInferenceContext
from megatron.core.inference.engines.dynamic_engine import DynamicInferenceEngine
from megatron.core.transformer.transformer_config import TransformerConfig

config = TransformerConfig(
    num_layers=32, hidden_size=4096, num_attention_heads=32,     # your model's values
    bf16=True, params_dtype=torch.bfloat16,
    cuda_graph_impl="local",
    cuda_graph_modules=[],                 # whole layer / block; leave cuda_graph_scope unset
    inference_cuda_graph_scope="block",    # or "layer"
    use_te_rng_tracker=True,
    # MoE only: with EP>1 the local graphs need static expert shapes:
    # moe_pad_experts_for_cuda_graph_inference=True   (unless transformer_impl="inference_optimized")
    # FP8 + block scope: transformer_impl="inference_optimized" with fp8_recipe="mxfp8"
)

inference_config = InferenceConfig(
    num_cuda_graphs=-1,                          # automatic bucket count (None = no graphs!)
    use_cuda_graphs_for_non_decode_steps=False,  # decode-only graphs; mixed prefill graphs multiply memory
    # set max_requests / buffer size as usual; leave headroom for the graph buffers
)


def build_engine(model, controller_factory):
    """`model` built from `config`; `controller_factory(model, context)` -> TextGenerationController."""
    model.eval()
    context = DynamicInferenceContext(config, inference_config)
    controller = controller_factory(model, context)
    # Graphs are captured while the engine is constructed (under torch.inference_mode()).
    engine = DynamicInferenceEngine(controller, context)
    return engine


def decode_loop(engine, requests):
    # Replay must happen under the same mode as capture: if you drive steps yourself, stay in
    # torch.inference_mode(), not no_grad(), or the captured graphs won't match.
    with torch.inference_mode():
        for r in requests:
            engine.add_request(**r)
        while engine.has_unfinished_requests():
            engine.step_modern()


# Constraints to keep in mind:
# - Pipeline-parallel *microbatched* inference is incompatible with CUDA graphs (arguments.py asserts).
# - MoE with EP>1: every EP rank must agree on the graph buckets and the EP communicator must be
#   initialised before capture (Megatron-LM PRs #3033, #6412). If a multi-node MoE decode hangs
#   during graph warmup, upgrade megatron-core first.
# - Confirm capture in the log: "> dynamic_engine.py: building cuda graphs for ..." followed by
#   "> built cuda graph(s) in X sec". No such line means you are running eager (check impl, scope,
#   num_cuda_graphs).
# - Megatron-LM flags for the same thing:
#   --cuda-graph-impl local --inference-cuda-graph-scope block
#   --inference-dynamic-batching-num-cuda-graphs -1 --decode-only-cuda-graphs --te-rng-tracker
# - On 0.16-0.17 there is no inference_cuda_graph_scope: per-layer graphs come from cuda_graph_impl="local"
#   alone; whole-block graphs are cuda_graph_scope=["full_iteration_inference"] (0.17 only).
