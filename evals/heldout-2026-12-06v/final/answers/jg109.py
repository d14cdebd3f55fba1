"""Full-iteration CUDA graph for Megatron Bridge on megatron-core 0.19.

One graph covers the whole forward + backward of a training step (the optimizer
step still runs eagerly). On 0.18+ this is its own impl, `full_iteration`; the
old `local` + cuda_graph_scope=["full_iteration"] spelling is only migrated with a
deprecation warning, so write the new keys.
"""

from megatron.bridge.training.config import ConfigContainer


def enable_full_iteration_graph(cfg: ConfigContainer) -> ConfigContainer:
    m = cfg.model

    m.cuda_graph_impl = "full_iteration"
    m.cuda_graph_scope = None      # stock recipes set the deprecated key ("full" or a list)
    m.cuda_graph_modules = []      # must be empty: 'cuda_graph_modules must be empty when cuda_graph_impl="full_iteration".'
    m.cuda_graph_warmup_steps = 3  # eager steps before the capture step

    # Graph-safe RNG (required for any CUDA graph in Bridge)
    m.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # The NaN checks read the loss / grad norm back to the host (a CPU-GPU sync).
    # A sync cannot live inside a captured iteration, so both must be off.
    # Bridge asserts: "check_for_nan_in_loss must be disabled when using full_iteration CUDA graph."
    # (Megatron-LM equivalent: --no-check-for-nan-in-loss-and-grad)
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False

    # The next step's param all-gather is issued from the optimizer step, outside
    # the captured region; don't overlap it with the optimizer step here.
    cfg.optimizer.overlap_param_gather_with_optimizer_step = False

    return cfg


# Things this does NOT handle for you:
#  * Static shapes: fixed seq_length and micro_batch_size; pad packed sequences
#    (dataset.pad_to_max_length=True, offline_packing_specs.pad_cu_seqlens=True) or don't pack.
#  * No host syncs anywhere in forward/backward (no .item()/.cpu() in custom code).
#    Dropless MoE dispatch syncs with the host, so full iteration fails at capture
#    there; use TE per-layer graphs (attn, moe_router, moe_preprocess) for dropless MoE.
#  * Memory: the whole iteration's activations/workspaces live in the graph pool.
#    A config that just fits eagerly can OOM after capture.
#  * You lose in-loop NaN detection; keep an eye on loss/grad-norm in the logs.
#
# Verify: log shows "Capture CUDA graph for training!!!" then
# "CUDA graph capture done for training!!!". Time replay iterations after the
# capture step against an eager run with the same seed; check loss parity.
