"""Full-iteration CUDA graph for a Megatron Bridge run on megatron-core 0.19.

One graph covers the whole forward+backward of a training step (all micro-batches);
the optimizer step stays eager. This is the largest launch-overhead cut MCore offers,
and also the strictest mode.
"""

from megatron.bridge.recipes.llama import llama31_8b_pretrain_config  # use your own recipe here
from megatron.bridge.training.config import ConfigContainer


def enable_full_iteration_graph(cfg: ConfigContainer) -> ConfigContainer:
    # --- graph mode (0.18+ spelling) ---
    cfg.model.cuda_graph_impl = "full_iteration"
    cfg.model.cuda_graph_scope = None      # deprecated key; stock recipes set "full" or a list -> clear it
    cfg.model.cuda_graph_modules = []      # must be empty with full_iteration (MCore asserts otherwise)
    cfg.model.cuda_graph_warmup_steps = 3  # eager iterations before the capture iteration

    # --- graph-safe RNG (Bridge asserts use_te_rng_tracker whenever cuda_graph_impl != "none") ---
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # --- no host syncs inside the captured region ---
    # The NaN checks read the loss / grad norm back on the CPU during the step. That is a
    # device-to-host sync, which is illegal while the iteration is being captured.
    # Bridge refuses the config with check_for_nan_in_loss on:
    #   "check_for_nan_in_loss must be disabled when using full_iteration CUDA graph."
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False
    # (Megatron-LM CLI equivalent: --no-check-for-nan-in-loss-and-grad)

    # --- keep the param-gather overlap out of the optimizer step ---
    cfg.optimizer.overlap_param_gather_with_optimizer_step = False

    return cfg


cfg = enable_full_iteration_graph(llama31_8b_pretrain_config())

# Before you run it:
# * Shapes must be static: fixed seq_length and micro_batch_size, no variable-length batches;
#   if you pack sequences, pad them to a fixed length.
# * Dense models only in practice: a dropless MoE dispatcher copies token counts to the host
#   inside the step and capture fails. For MoE use TE per-layer graphs (attn/moe_router/moe_preprocess).
# * Memory goes up (static buffers + private pool for the whole step). If the run barely fits
#   eagerly it may OOM at capture.
# * Your loss no longer gets NaN-checked each step: watch the loss curve / grad norm yourself.
#
# Verify in the log:
#   Capture CUDA graph for training!!!
#   CUDA graph capture done for training!!!
# Then compare steady-state iterations (after the capture iteration) against an eager run with
# the same seed and NaN-check settings; the capture iteration itself is slow and doesn't count.
