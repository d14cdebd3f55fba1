"""Full-iteration CUDA graph for Megatron Bridge on megatron-core 0.19.

One graph covers the whole forward+backward of a training iteration (the
optimizer step stays eager). This gives the largest launch-overhead reduction
and also has the strictest constraints.
"""

from importlib.metadata import version

from packaging.version import Version

from megatron.bridge.training.config import ConfigContainer


def enable_full_iteration_graph(cfg: ConfigContainer, warmup_steps: int = 3) -> ConfigContainer:
    mcore = Version(version("megatron-core"))
    assert mcore >= Version("0.18"), (
        f"megatron-core {mcore}: cuda_graph_impl='full_iteration' / cuda_graph_modules are 0.18+. "
        "On 0.16/0.17 use cuda_graph_impl='local' + cuda_graph_scope=['full_iteration']."
    )

    # --- the graph itself ---------------------------------------------------
    cfg.model.cuda_graph_impl = "full_iteration"
    cfg.model.cuda_graph_modules = []      # must be empty with full_iteration (MCore asserts otherwise)
    cfg.model.cuda_graph_scope = None      # stock recipes set the deprecated "full"; drop it
    cfg.model.cuda_graph_warmup_steps = warmup_steps  # eager steps before capture; keep >= 1

    # --- graph-safe RNG (required with any CUDA graph) ----------------------
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # --- no host syncs inside the captured region ---------------------------
    # The NaN checks read the loss / grad norm back on the CPU every step. That is a
    # CPU-GPU sync, which can't be inside a graph. Bridge asserts
    # "check_for_nan_in_loss must be disabled when using full_iteration CUDA graph."
    # (Megatron-LM: --no-check-for-nan-in-loss-and-grad.)
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False

    # The param all-gather overlapped with the optimizer step would be issued outside
    # the capture and waited on inside it, so keep it off.
    cfg.optimizer.overlap_param_gather_with_optimizer_step = False

    return cfg


# Usage:
#   from megatron.bridge.recipes.llama import llama31_8b_pretrain_config
#   cfg = enable_full_iteration_graph(llama31_8b_pretrain_config())
#
# Static shapes are mandatory: fixed seq_length and micro_batch_size, and pad if you pack
# (dataset.pad_to_max_length=True). Not for dropless MoE: the dispatcher's host sync on
# token counts breaks full-iteration capture there; use TE-scoped router graphs instead.
#
# Check the log for "Capture CUDA graph for training!!!" and then
# "CUDA graph capture done for training!!!". Compare step time on iterations after the
# capture step against eager, and watch peak memory: the graph's pool stays resident.
