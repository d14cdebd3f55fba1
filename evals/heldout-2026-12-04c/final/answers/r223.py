"""Whole-block decode graphs on megatron-core 0.17 - as a test you can keep in the repo.

On 0.17 there is no `inference_cuda_graph_scope` (that key arrives in 0.18). Block-level
inference capture is requested through the training-era list key:

    cuda_graph_impl="local"
    cuda_graph_scope=["full_iteration_inference"]

`CudaGraphScope.full_iteration_inference` is new in 0.17 (0.16 only has per-layer local
inference graphs). With it, TransformerBlock owns one graph per batch bucket and the layers
skip their own graphs. Do NOT use ["full_iteration"] here: on 0.17 that makes no inference
graphs at all (the dynamic engine only prints a warning telling you to use
full_iteration_inference). When you move to 0.18+, the same intent is
cuda_graph_impl="local" + inference_cuda_graph_scope="block".

Engine side, unchanged from layer graphs: give it a graph count
(--inference-dynamic-batching-num-cuda-graphs N, or InferenceConfig.num_cuda_graphs,
whose Python default None builds none) and prefer decode-only graphs
(--decode-only-cuda-graphs). FP8 with this scope needs transformer_impl="inference_optimized"
and the mxfp8 recipe.
"""
import dataclasses
import unittest

import megatron.core
from megatron.core.transformer import TransformerConfig
from megatron.core.transformer.enums import CudaGraphScope


def decode_block_graph_config(**model_kwargs) -> TransformerConfig:
    return TransformerConfig(
        cuda_graph_impl="local",
        cuda_graph_scope=["full_iteration_inference"],
        use_te_rng_tracker=True,
        **model_kwargs,
    )


class TestDecodeBlockGraphs017(unittest.TestCase):
    def setUp(self):
        self.assertTrue(megatron.core.__version__.startswith("0.17"), megatron.core.__version__)

    def test_block_scope_is_set(self):
        cfg = decode_block_graph_config(num_layers=2, hidden_size=64, num_attention_heads=4)
        self.assertEqual(cfg.cuda_graph_impl, "local")
        self.assertIn(CudaGraphScope.full_iteration_inference, cfg.cuda_graph_scope)

    def test_no_018_key_on_017(self):
        names = {f.name for f in dataclasses.fields(TransformerConfig)}
        self.assertNotIn("inference_cuda_graph_scope", names)
        self.assertNotIn("cuda_graph_modules", names)


if __name__ == "__main__":
    unittest.main()

# Launch equivalent (Megatron-LM 0.17):
#   python examples/inference/gpt/gpt_dynamic_inference.py ... \
#     --cuda-graph-impl local --cuda-graph-scope full_iteration_inference \
#     --inference-dynamic-batching-num-cuda-graphs 16 --decode-only-cuda-graphs --te-rng-tracker
