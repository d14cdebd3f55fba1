"""Full-iteration CUDA graph recipe for Megatron Bridge on megatron-core 0.19.

One CUDA graph covers the whole forward+backward of a training iteration (the
optimizer step is not captured). This is the largest launch-overhead reduction
Megatron offers, and also the strictest mode:

* megatron-core 0.18+ spelling: cuda_graph_impl="full_iteration" with an EMPTY
  cuda_graph_modules list. MCore asserts
  'cuda_graph_modules must be empty when cuda_graph_impl="full_iteration".'
  (On 0.16/0.17 the same thing was cuda_graph_impl="local" +
  cuda_graph_scope=["full_iteration"]; "full_iteration" is not a valid impl there.)
* Nothing inside the captured region may synchronize with the host, so the loss
  and gradient NaN checks must be off. Bridge enforces the loss one:
  "check_for_nan_in_loss must be disabled when using full_iteration CUDA graph."
  (Megatron-LM equivalent: --no-check-for-nan-in-loss-and-grad.)
* Graph-safe RNG: TE RNG tracker on both the model and rng config.
* Static shapes: fixed seq_length and micro_batch_size for the whole run.
"""

from megatron.bridge.recipes.llama import llama31_8b_pretrain_config
from megatron.bridge.training.config import ConfigContainer


def full_iteration_cuda_graph_config(
    seq_length: int = 8192,
    micro_batch_size: int = 1,
    warmup_steps: int = 3,
) -> ConfigContainer:
    cfg = llama31_8b_pretrain_config()

    # static shapes
    cfg.model.seq_length = seq_length
    cfg.dataset.seq_length = seq_length
    cfg.train.micro_batch_size = micro_batch_size

    # full-iteration graph (0.18+ API)
    cfg.model.cuda_graph_impl = "full_iteration"
    cfg.model.cuda_graph_scope = None      # recipe sets the deprecated "full"; clear it
    cfg.model.cuda_graph_modules = []      # must be empty for full_iteration
    cfg.model.cuda_graph_warmup_steps = warmup_steps

    # graph-safe RNG
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # no CPU-GPU syncs inside capture
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False

    # keep the optimizer-step param-gather overlap off (default); the graph ends before the optimizer step
    cfg.optimizer.overlap_param_gather_with_optimizer_step = False

    # CPU offloading is incompatible with CUDA graphs
    cfg.model.cpu_offloading = False
    return cfg


if __name__ == "__main__":
    from megatron.bridge.training.gpt_step import forward_step
    from megatron.bridge.training.pretrain import pretrain

    pretrain(full_iteration_cuda_graph_config(), forward_step)

# Operational notes
# - Profile eager first; the graph only pays off if the timeline shows host/launch gaps.
# - Time iterations after warmup + capture against the same window of an eager run;
#   the capture iteration itself is slow and is not steady state.
# - Expect higher memory (graph pools stay resident). If you use
#   PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, set NCCL_GRAPH_REGISTER=0.
# - With the NaN checks off, watch the loss curve yourself (logging still works).
