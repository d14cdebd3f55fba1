# Full-iteration CUDA graph for Megatron Bridge on megatron-core 0.19
# (one graph for the whole forward+backward of a training step; the optimizer step stays eager).

def enable_full_iteration_graph(cfg):
    # 0.18+ spelling. The old `local` + cuda_graph_scope=["full_iteration"] still loads
    # but is migrated with a deprecation warning, so write the new keys.
    cfg.model.cuda_graph_impl = "full_iteration"
    cfg.model.cuda_graph_scope = None        # stock recipes set "full" or a list; clear it
    cfg.model.cuda_graph_modules = []        # must be empty: 'cuda_graph_modules must be empty when cuda_graph_impl="full_iteration".'
    cfg.model.cuda_graph_warmup_steps = 3    # eager steps before the capture step

    # Graph-safe RNG (Bridge asserts use_te_rng_tracker for any graph)
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # The NaN checks read values back on the host (a CPU-GPU sync), which can't sit
    # inside a captured iteration. Bridge refuses the config otherwise:
    # "check_for_nan_in_loss must be disabled when using full_iteration CUDA graph."
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False
    return cfg


# usage
# cfg = llama3_8b_pretrain_config()      # or whatever recipe you start from
# cfg = enable_full_iteration_graph(cfg)
# pretrain(cfg, forward_step)

# Before you run it:
# - Static shapes: fixed seq_length and micro_batch_size. Packed data must be padded
#   (dataset.pad_to_max_length=True and offline_packing_specs.pad_cu_seqlens=True),
#   otherwise Bridge refuses the config or capture breaks.
# - Full recompute is fine here; this is the one impl that accepts
#   recompute_granularity="full".
# - Dropless MoE won't capture (the dispatcher syncs token counts to the host). For MoE
#   use TE per-layer graphs instead (attn, moe_router, moe_preprocess).
# - Memory: the whole iteration's activations live in the graph pool. A run that fits
#   eagerly can OOM after capture.
# - You lose in-loop NaN detection, so watch the loss/grad-norm in the logs yourself.
# - Megatron-LM equivalent:
#   --cuda-graph-impl full_iteration --no-check-for-nan-in-loss-and-grad --te-rng-tracker
#   with no --cuda-graph-modules / --cuda-graph-scope on the command line.
# - Log check: "Capture CUDA graph for training!!!" then "CUDA graph capture done for training!!!".
#   Time steady-state steps after that, not the capture step, and compare with eager.
