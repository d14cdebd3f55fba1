"""Full-iteration CUDA graph for Megatron Bridge on megatron-core 0.19.

One graph covers the whole forward+backward of a training iteration (all microbatches). The
optimizer step stays outside it. This is the largest launch-overhead cut MCore offers, and it
has the strictest rules.
"""

from megatron.bridge.training.config import ConfigContainer


def with_full_iteration_cuda_graph(cfg: ConfigContainer, warmup_steps: int = 3) -> ConfigContainer:
    """Turn an existing recipe (e.g. llama31_8b_pretrain_config()) into a full-iteration graph run."""

    # --- the graph itself (0.18+ API) -------------------------------------------------------
    cfg.model.cuda_graph_impl = "full_iteration"
    cfg.model.cuda_graph_modules = []     # MUST be empty: 'cuda_graph_modules must be empty when
                                          # cuda_graph_impl="full_iteration".'
    cfg.model.cuda_graph_scope = None     # recipes still assign the deprecated key ("full");
                                          # clear it so nothing legacy is left to migrate
    cfg.model.cuda_graph_warmup_steps = warmup_steps

    # --- graph-safe RNG ----------------------------------------------------------------------
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # --- no host syncs inside the captured region --------------------------------------------
    # The NaN checks read a value back to the CPU in the middle of the step. A captured
    # iteration can't contain a CPU-GPU sync, so both have to go.
    cfg.rerun_state_machine.check_for_nan_in_loss = False   # Bridge asserts this for full_iteration
    cfg.ddp.check_for_nan_in_grad = False                   # many recipes set it True

    # --- keep param-gather overlap out of the optimizer step ---------------------------------
    cfg.optimizer.overlap_param_gather_with_optimizer_step = False
    return cfg


# Equivalent shortcut on Bridge versions that ship megatron/bridge/utils/cuda_graph.py:
#     from megatron.bridge.utils.cuda_graph import set_full_iteration_cuda_graph
#     set_full_iteration_cuda_graph(cfg.model)   # impl="full_iteration", modules=[], scope=None
# (you still need the RNG and NaN-check lines above).
#
# Megatron-LM (no Bridge) equivalent:
#     --cuda-graph-impl full_iteration --cuda-graph-warmup-steps 3 --no-check-for-nan-in-loss-and-grad
#     (with the default --transformer-impl transformer_engine, MLM turns te_rng_tracker on itself)
#
# Operational notes
# * Shapes must be static: fixed seq_length, micro_batch_size and number of microbatches.
#   No variable-length/packed batches without padding to a fixed width, and no batch-size ramp-up.
# * inference_cuda_graph_scope must stay unset/"none" with this impl.
# * Don't write cuda_graph_impl="local" + cuda_graph_scope=["full_iteration"] on 0.19. That is
#   the 0.16/0.17 spelling. 0.19 still migrates it with a deprecation warning, but the config
#   above is the clean form.
# * Memory: the whole iteration's activations live in the graph pool. Check peak memory before
#   scaling up.
# * With NaN checks off, watch the logged loss / grad norm yourself.
# * Benchmark replay iterations after warmup+capture against eager on the same steps; the
#   capture iteration itself is slow.
