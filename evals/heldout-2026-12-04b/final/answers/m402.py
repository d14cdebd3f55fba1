# Backport of the 0.19 full-iteration example to megatron-core 0.17.
#
# Why the 0.19 lines fail on 0.17:
#   * `cuda_graph_modules` does not exist before 0.18 -- 0.17's TransformerConfig only has the
#     list field `cuda_graph_scope`, so the override has no field to land on.
#   * `cuda_graph_impl="full_iteration"` is a 0.18+ value. 0.17 only accepts "none", "local" and
#     "transformer_engine"; anything else trips
#       AssertionError: Invalid cuda graph implementation: full_iteration
#   * In 0.17 a full-iteration graph is the *local* implementation with the special
#     `full_iteration` scope (CudaGraphScope.full_iteration in megatron/core/transformer/enums.py).
#
# Drop the two 0.19 lines and use this instead (Bridge ConfigContainer `cfg`, mcore 0.17):

cfg.model.cuda_graph_impl = "local"
cfg.model.cuda_graph_scope = ["full_iteration"]   # list it alone; no attn/mlp next to it
cfg.model.cuda_graph_warmup_steps = 3

# graph-safe RNG (Bridge asserts it for any CUDA graph)
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True

# the whole fwd+bwd is one graph: the NaN checks sync with the host, so they must be off
cfg.rerun_state_machine.check_for_nan_in_loss = False
cfg.ddp.check_for_nan_in_grad = False

# Megatron-LM launch equivalent on core_v0.17:
#   --cuda-graph-impl local --cuda-graph-scope full_iteration \
#   --no-check-for-nan-in-loss-and-grad --te-rng-tracker
#
# When the image moves to 0.18+, switch back to
#   cuda_graph_impl="full_iteration", cuda_graph_modules=[]   (cuda_graph_scope=None)
# -- 0.18+ still loads local+["full_iteration"] but migrates it with a deprecation warning.
# Keep seq_length and micro_batch_size fixed; compare replay steps against eager, not the capture step.
