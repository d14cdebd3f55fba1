#!/usr/bin/env python3
"""Full-iteration CUDA graph (forward + backward as one graph) -- megatron-core 0.19, Megatron Bridge.

Launch:  torchrun --nproc_per_node=8 pretrain_full_iter_graph.py

What gets captured: the whole forward_backward_func of a training iteration. The optimizer step
stays eager (there's a separate, experimental optimizer graph; leave it off for now).
"""
from megatron.bridge.recipes.llama import llama31_8b_pretrain_config  # swap in your recipe
from megatron.bridge.training.gpt_step import forward_step
from megatron.bridge.training.pretrain import pretrain

cfg = llama31_8b_pretrain_config()

# --- full-iteration graph: 0.18+ spelling ----------------------------------------------------
cfg.model.cuda_graph_impl = "full_iteration"
cfg.model.cuda_graph_scope = None      # recipes ship "full"/a list; drop the deprecated key
cfg.model.cuda_graph_modules = []      # MUST be empty: 'cuda_graph_modules must be empty when
                                       # cuda_graph_impl="full_iteration".'
cfg.model.cuda_graph_warmup_steps = 3  # eager iterations before the capture iteration

# --- graph-safe RNG (required for any CUDA graph) ---------------------------------------------
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True

# --- no host syncs inside the captured iteration ---------------------------------------------
# The NaN checks read the loss/grad norm back to the CPU every iteration, and a device-to-host
# sync can't be captured. Bridge asserts on the loss check:
#   "check_for_nan_in_loss must be disabled when using full_iteration CUDA graph."
# (Megatron-LM's equivalent is --no-check-for-nan-in-loss-and-grad.)
cfg.rerun_state_machine.check_for_nan_in_loss = False
cfg.ddp.check_for_nan_in_grad = False

# --- static shapes -----------------------------------------------------------------------------
# One graph is replayed every step, so seq_length and micro_batch_size must never change.
# No variable-length / unpadded packed batches.
# (cfg.model.seq_length / cfg.train.micro_batch_size: leave them fixed.)

if __name__ == "__main__":
    pretrain(cfg, forward_step)

# Caveats
# * Not for dropless MoE: the token dispatcher syncs with the host, so use TE per-layer graphs
#   (moe_router/moe_preprocess) there.
# * Memory: the whole iteration's activations live in the graph pool. A run that barely fits
#   eagerly can OOM after capture.
# * Verify with "Capture CUDA graph for training!!!" / "CUDA graph capture done for training!!!"
#   in the log, then compare step time on iterations after the capture iteration with an eager
#   run, same seed. Loss should match eager to bf16 noise.
# * On megatron-core 0.16/0.17 this exact intent is cuda_graph_impl="local" +
#   cuda_graph_scope=["full_iteration"]; impl="full_iteration" and cuda_graph_modules don't exist
#   there.
