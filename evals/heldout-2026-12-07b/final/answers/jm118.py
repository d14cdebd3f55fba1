# Why it fails
# ------------
# Both lines you copied are megatron-core 0.18+ API:
#   * cuda_graph_modules            -> added in 0.18 (rename of cuda_graph_scope); not a field on 0.17
#   * cuda_graph_impl="full_iteration" -> added in 0.18; 0.17 only accepts "none", "local",
#                                        "transformer_engine" and asserts
#                                        "Invalid cuda graph implementation: full_iteration"
#
# 0.16/0.17 express full-iteration capture as the MCore *local* implementation with the
# special scope entry "full_iteration".
#
# Note: on 0.17 the scope value "full" (or []) means "whole *layer*" per-layer graphs, NOT the whole
# iteration. Don't confuse the two; you want the literal "full_iteration" entry.

# --- megatron-core 0.17 spelling -------------------------------------------------------------
cfg.model.cuda_graph_impl = "local"
cfg.model.cuda_graph_scope = ["full_iteration"]   # alone in the list
cfg.model.cuda_graph_warmup_steps = 3
cfg.model.use_te_rng_tracker = True               # graph-safe RNG, required for any graph
cfg.rng.te_rng_tracker = True

# A full-iteration graph can't contain the NaN checks' host syncs:
cfg.rerun_state_machine.check_for_nan_in_loss = False   # Bridge asserts this for full_iteration
cfg.ddp.check_for_nan_in_grad = False
# (remove the cuda_graph_modules line entirely)

# --- or version-agnostic, if your Bridge has the helper (v0.5+) --------------------------------
# from megatron.bridge.utils.cuda_graph import set_full_iteration_cuda_graph
# set_full_iteration_cuda_graph(cfg.model)   # 0.18+: impl="full_iteration", modules=[]
#                                            # older: impl="local", scope=[CudaGraphScope.full_iteration]
# ...and still set the RNG-tracker and NaN-check lines above yourself.
#
# Megatron-LM CLI equivalent on 0.17:
#   --cuda-graph-impl local --cuda-graph-scope full_iteration --no-check-for-nan-in-loss-and-grad --te-rng-tracker
#
# When the image moves to 0.18+, switch back to:
#   cfg.model.cuda_graph_impl = "full_iteration"; cfg.model.cuda_graph_scope = None; cfg.model.cuda_graph_modules = []
