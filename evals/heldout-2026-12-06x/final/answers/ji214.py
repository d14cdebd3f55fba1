"""Decode CUDA graphs for a GPT model on the MCore dynamic inference engine (megatron-core 0.19).

How it works
------------
0.18+ splits graph *ownership* for inference from training via ``inference_cuda_graph_scope``:

* ``"layer"``: each TransformerLayer owns its decode graphs (one per batch bucket).
* ``"block"``: the TransformerBlock owns one graph per bucket. Fewer launches, less graph
  memory, usually the faster choice for small-batch decode.

Which implementation?
* ``cuda_graph_impl="local"`` supports both ``layer`` and ``block``. It's the default path and
  what the examples use.
* ``cuda_graph_impl="transformer_engine"`` also works for decode, but only at layer granularity:
  TE's make_graphed_callables graphs each layer, so pair it with
  ``inference_cuda_graph_scope="layer"`` (``block`` needs the MCore manager). Handy if the same
  checkpoint/config is used for training with TE graphs and you don't want a second config.
* ``full_iteration`` is a training-only impl; its inference scope must stay ``none``.

Gotchas: ``InferenceConfig.num_cuda_graphs`` defaults to ``None`` (= no graphs), so set it;
capture and replay must both run under ``torch.inference_mode()``; MoE decode needs static
expert shapes (``moe_pad_experts_for_cuda_graph_inference=True``); FP8 + block scope needs
``transformer_impl="inference_optimized"`` with mxfp8.
"""

import argparse

from megatron.core.inference.config import InferenceConfig
from megatron.core.transformer.transformer_config import TransformerConfig


def build_configs(use_te_graphs: bool, model_kwargs: dict):
    if use_te_graphs:
        graph_kwargs = dict(cuda_graph_impl="transformer_engine", inference_cuda_graph_scope="layer")
    else:
        graph_kwargs = dict(cuda_graph_impl="local", inference_cuda_graph_scope="block")

    config = TransformerConfig(
        **model_kwargs,
        **graph_kwargs,
        cuda_graph_modules=[],
        use_te_rng_tracker=True,
    )
    inference_config = InferenceConfig(
        num_cuda_graphs=-1,                          # automatic bucket count (>= 0.17)
        use_cuda_graphs_for_non_decode_steps=False,  # decode-only; mixed graphs cost lots of memory
    )
    return config, inference_config


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--te-graphs", action="store_true",
                   help="reuse TE graphs (layer scope) instead of MCore local block graphs")
    args = p.parse_args()

    model_kwargs = dict(num_layers=24, hidden_size=2048, num_attention_heads=16)  # your model
    config, inference_config = build_configs(args.te_graphs, model_kwargs)
    print(config.cuda_graph_impl, config.inference_cuda_graph_scope, inference_config.num_cuda_graphs)

    # Build the model / DynamicInferenceContext(model_config, inference_config) /
    # TextGenerationController / DynamicInferenceEngine as usual. At engine start-up look for
    #   "> built cuda graph(s) in X sec"
    # in the log: that is the capture. Then compare decode tokens/s against an eager run
    # (cuda_graph_impl="none") at your real batch sizes.
