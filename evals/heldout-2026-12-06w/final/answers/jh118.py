# Diagnosis for:
#   AttributeError: 'TransformerLayer' object has no attribute 'is_moe_layer'
# with llama31_8b_sft_config + cuda_graph_impl="local" + cuda_graph_scope=["mlp"]
#
# Root cause: with the MCore "local" implementation the CudaGraphManager is created from
# MegatronModule.__init__ (via TransformerLayer.create_mcore_cudagraph_manager), i.e. *before*
# TransformerLayer.__init__ has built its MLP and set self.is_moe_layer. Only the "mlp" branch of
# create_mcore_cudagraph_manager touches is_moe_layer (it asserts the layer isn't MoE), so that's
# the only scope that blows up. The "attn" branch and the empty (whole-layer) scope never read it.
#
# So the minimal change is to keep the local implementation and graph attention instead of the MLP.
# The local manager is the lighter-weight path (no TE make_graphed_callables warmup passes, graphs
# are captured lazily per layer on first use after warmup).

from megatron.bridge.recipes.llama.llama3 import llama31_8b_sft_config

cfg = llama31_8b_sft_config()

cfg.model.cuda_graph_impl = "local"
cfg.model.cuda_graph_scope = ["attn"]     # avoids the is_moe_layer ordering bug in the mlp branch
cfg.model.cuda_graph_warmup_steps = 3
cfg.model.use_te_rng_tracker = True       # required for any CUDA graph
cfg.rng.te_rng_tracker = True

# If you specifically need the MLP graphed, the TE implementation has no such ordering issue:
#   cfg.model.cuda_graph_impl = "transformer_engine"
#   cfg.model.cuda_graph_scope = ["mlp"]
#
# Notes
# - SFT recipe uses packed sequences: keep the packed size fixed (pad to the packed sequence size)
#   so shapes stay static across steps.
# - Local graphs change dropout RNG consumption; with dropout > 0 the loss won't match eager
#   bit-for-bit. Llama 3.1 uses no dropout, so it should track eager.
# - Compare step time after capture against an eager run before keeping it.
