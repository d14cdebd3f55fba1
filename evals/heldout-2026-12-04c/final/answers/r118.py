"""Can a drop-and-pad MoE model graph the MoE block itself? Yes -- here are the rules, as tests.

Short answer
------------
With ``moe_expert_capacity_factor`` set (1.0 here) and ``moe_pad_expert_input_to_capacity=True``
every expert always receives exactly ``capacity`` tokens, so the MoE block has static shapes and
megatron-core allows the ``moe`` module in a Transformer Engine per-layer graph.

Rules
-----
1. ``cuda_graph_impl = "transformer_engine"``, modules ``["attn", "moe"]``
   (key ``cuda_graph_modules`` on megatron-core 0.18+, ``cuda_graph_scope`` on 0.16-0.17).
   On 0.18+ Bridge recipes: set ``cuda_graph_scope = None`` when you set ``cuda_graph_modules``.
2. ``moe`` must NOT be combined with ``moe_router`` (or ``moe_preprocess``, which needs
   ``moe_router``): "cuda_graph_modules must not contain both moe and moe_router."
3. Both drop-and-pad settings are required. Drop the padding (or the capacity factor) and the
   config is refused: "moe cuda graph is only supported with drop-padding MoE."
4. TE RNG tracker on: ``model.use_te_rng_tracker`` and ``rng.te_rng_tracker``.
5. Static seq_length / micro-batch size; A/B post-capture iterations against eager.

The tests build megatron-core's own TransformerConfig (megatron-core 0.19) so the asserts quoted
above are exercised for real. Run: ``python -m pytest test_moe_drop_pad_graphs.py -q`` (CPU is
enough; Transformer Engine must be importable).
"""

import unittest

from megatron.core.transformer.transformer_config import TransformerConfig

BASE = dict(
    num_layers=4,
    hidden_size=512,
    num_attention_heads=8,
    num_moe_experts=8,
    moe_router_topk=2,
    moe_token_dispatcher_type="alltoall",
    moe_expert_capacity_factor=1.0,
    moe_pad_expert_input_to_capacity=True,
    cuda_graph_impl="transformer_engine",
    cuda_graph_warmup_steps=3,
    use_te_rng_tracker=True,
)


def make(**overrides):
    kw = dict(BASE)
    kw.update(overrides)
    return TransformerConfig(**kw)


class DropPadMoeGraphRules(unittest.TestCase):
    def test_moe_block_allowed_with_drop_and_pad(self):
        cfg = make(cuda_graph_modules=["attn", "moe"])
        self.assertEqual([m.name for m in cfg.cuda_graph_modules], ["attn", "moe"])

    def test_moe_with_moe_router_refused(self):
        with self.assertRaisesRegex(AssertionError, "must not contain both moe and moe_router"):
            make(cuda_graph_modules=["attn", "moe", "moe_router"])

    def test_moe_without_padding_refused(self):
        with self.assertRaisesRegex(AssertionError, "only supported with drop-padding MoE"):
            make(cuda_graph_modules=["attn", "moe"], moe_pad_expert_input_to_capacity=False)


# The Bridge lines this validates (megatron-core 0.19):
#
#   cfg.model.moe_expert_capacity_factor = 1.0
#   cfg.model.moe_pad_expert_input_to_capacity = True
#   cfg.model.cuda_graph_impl = "transformer_engine"
#   cfg.model.cuda_graph_scope = None
#   cfg.model.cuda_graph_modules = ["attn", "moe"]
#   cfg.model.cuda_graph_warmup_steps = 3
#   cfg.model.use_te_rng_tracker = True
#   cfg.rng.te_rng_tracker = True
#
# megatron-core 0.16 / 0.17: replace the two scope/modules lines by
#   cfg.model.cuda_graph_scope = ["attn", "moe"]

if __name__ == "__main__":
    unittest.main()
