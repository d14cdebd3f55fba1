# What's wrong
# -----------
# cuda_graph_impl="local" with a partial per-module scope (["mlp"]) is the MCore *local*
# CudaGraphManager path, and Megatron Bridge does not support it for training.
#
# The AttributeError comes from construction order. With impl "local", the graphable
# module base class (MegatronModule.__init__ in megatron/core/transformer/module.py) calls
# TransformerLayer.create_mcore_cudagraph_manager() from inside super().__init__(). For the
# "mlp" scope that method runs `assert not self.is_moe_layer`, but TransformerLayer.__init__
# only sets self.is_moe_layer later, after it has built self.mlp. Hence:
#     AttributeError: 'TransformerLayer' object has no attribute 'is_moe_layer'
#
# Nothing is wrong with use_te_rng_tracker. Newer Bridge (v0.6.0) catches this at config
# validation with a clear message instead of crashing:
#     Megatron Bridge supports model.cuda_graph_impl="local" only for full-iteration CUDA
#     graphs with scopes ['mlp']. Use model.cuda_graph_impl="transformer_engine" for scoped
#     CUDA graph capture such as "attn" or "mlp".
#
# Fix: scoped capture in Bridge goes through Transformer Engine.

from megatron.bridge.recipes.llama import llama31_8b_sft_config

cfg = llama31_8b_sft_config()

cfg.model.cuda_graph_impl = "transformer_engine"      # was "local"

# megatron-core 0.16 / 0.17:
cfg.model.cuda_graph_scope = ["mlp"]                  # or ["attn", "mlp"] after an A/B
# megatron-core 0.18+: use the renamed key instead and clear the old one
# cfg.model.cuda_graph_scope = None
# cfg.model.cuda_graph_modules = ["mlp"]

cfg.model.cuda_graph_warmup_steps = 3
cfg.model.use_te_rng_tracker = True                   # keep: required for any graph
cfg.rng.te_rng_tracker = True

# Keep "local" only if what you actually want is a full-iteration graph:
#   0.16/0.17: cuda_graph_impl="local", cuda_graph_scope=["full_iteration"]
#   0.18+:     cuda_graph_impl="full_iteration", cuda_graph_modules=[]
#   (both need rerun_state_machine.check_for_nan_in_loss=False and ddp.check_for_nan_in_grad=False)
#
# SFT-specific: graphs replay fixed shapes. If the SFT dataset uses packed or
# variable-length sequences, pad to a fixed length (pad_to_max_length) or turn packing off,
# and keep micro_batch_size fixed.
