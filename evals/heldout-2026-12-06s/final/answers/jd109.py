# Full-iteration CUDA graph (one graph for forward+backward of the whole step)
# Megatron Bridge + megatron-core 0.19
#
# What gets captured: the entire forward_backward_func for the training step
# (all micro-batches). The optimizer step still runs eagerly after replay.
#
# Usage: torchrun --nproc-per-node 8 pretrain_full_iter_graph.py

from megatron.bridge.recipes.llama import llama3_8b_pretrain_config  # or your own recipe
from megatron.bridge.training.gpt_step import forward_step
from megatron.bridge.training.pretrain import pretrain

cfg = llama3_8b_pretrain_config()

# --- full-iteration capture: 0.18+ spelling -------------------------------
cfg.model.cuda_graph_impl = "full_iteration"
cfg.model.cuda_graph_scope = None       # stock recipes set "full"/a list; clear the deprecated key
cfg.model.cuda_graph_modules = []       # must be empty with full_iteration (MCore asserts otherwise)
cfg.model.cuda_graph_warmup_steps = 3   # eager steps before the capture step; keep >= 1

# --- graph-safe RNG (required with any CUDA graph) -------------------------
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True

# --- NaN checks OFF --------------------------------------------------------
# Both checks read a value back to the host (.item()/sync) inside forward/backward.
# A host sync cannot live inside a captured graph, so with full_iteration they must be
# off. Bridge's ConfigContainer.validate() asserts the loss one:
#   "check_for_nan_in_loss must be disabled when using full_iteration CUDA graph."
# (Megatron-LM equivalent: --no-check-for-nan-in-loss-and-grad, asserted in validate_args.)
cfg.rerun_state_machine.check_for_nan_in_loss = False
cfg.ddp.check_for_nan_in_grad = False

# --- things that must stay static / off -------------------------------------
# * seq_length and micro_batch_size fixed every step (graph buffers are static);
#   no variable-length batches; packed sequences only if padded
#   (dataset pad_to_max_length=True + offline_packing_specs.pad_cu_seqlens=True).
# * Keep overlap_param_gather_with_optimizer_step off: it moves the param all-gathers
#   into the optimizer step / first forward, which doesn't mix with a captured forward+backward.
# * Dropless MoE can't use this path (dispatcher syncs token counts to the host);
#   use TE per-layer graphs (attn, moe_router, moe_preprocess) there instead.
# * Full activation recompute (recompute_granularity="full") is allowed with full_iteration.
cfg.optimizer.overlap_param_gather_with_optimizer_step = False
if cfg.comm_overlap is not None:
    cfg.comm_overlap.overlap_param_gather_with_optimizer_step = False

if __name__ == "__main__":
    pretrain(cfg, forward_step)

# What to look for in the log:
#   "Capture CUDA graph for training!!!"  then  "CUDA graph capture done for training!!!"
# Iterations 1-3 are eager, iteration 4 includes the capture (slow). Compare iterations 5+
# with an eager run (same seed, same NaN-check settings for a fair comparison), and check
# peak memory: the whole step's activations live in the graph's private pool.
#
# Megatron-LM CLI equivalent (0.18+); remove any --cuda-graph-modules/--cuda-graph-scope first:
#   --cuda-graph-impl full_iteration --no-check-for-nan-in-loss-and-grad --te-rng-tracker
