"""CUDA-graph settings for a drop-and-pad MoE model, as a frozen attrs class.

Q: Can I capture the MoE block itself with CUDA graphs, and what are the rules?

A: Yes. Once tokens are routed with a fixed expert capacity, every expert sees the same
number of rows each step, so the MoE block has static shapes and the `moe` module can be
graphed with Transformer Engine per-layer graphs.

Rules:
  * `moe` and `moe_router` are mutually exclusive, and `moe_preprocess` is only valid
    together with `moe_router` -> when you graph `moe`, list neither of them.
  * Use cuda_graph_impl="transformer_engine" (Bridge only allows "local" for
    full-iteration graphs).
  * Graph-safe RNG is required: model.use_te_rng_tracker and rng.te_rng_tracker.
  * What makes the shapes static is the capacity factor: it caps tokens per expert.
    moe_pad_expert_input_to_capacity only pads the under-filled experts up to that cap, so
    it is optional for graphing -- you can turn it off to skip the padding FLOPs and
    keep the `moe` scope, as long as moe_expert_capacity_factor stays set.
  * Keep sequence length and micro-batch size fixed.
  * 0.18+ key is cuda_graph_modules; on 0.16-0.17 write the same list as cuda_graph_scope.
"""

import attr


@attr.s(frozen=True, auto_attribs=True)
class DropPadMoEGraphs:
    capacity_factor: float = 1.0
    pad_to_capacity: bool = True          # optional for graphs (see docstring)
    modules: tuple = ("attn", "moe")      # never add "moe_router"/"moe_preprocess" here
    warmup_steps: int = 3

    def apply(self, cfg):
        m = cfg.model
        m.moe_expert_capacity_factor = self.capacity_factor
        m.moe_pad_expert_input_to_capacity = self.pad_to_capacity
        m.cuda_graph_impl = "transformer_engine"
        m.cuda_graph_scope = None                 # recipe's legacy key; 0.18+ asserts if both are set
        m.cuda_graph_modules = list(self.modules)
        m.cuda_graph_warmup_steps = self.warmup_steps
        m.use_te_rng_tracker = True
        cfg.rng.te_rng_tracker = True
        return cfg


# usage (megatron-core 0.18+ with Bridge):
#   cfg = DropPadMoEGraphs().apply(cfg)
# verify: capture lines in the log, then compare replay steps after the capture step with
# an eager run of the same drop-and-pad config.
