"""enable_full_iter_graph.py -- patch a Bridge ConfigContainer for a full fwd+bwd CUDA graph.

Target: megatron-core 0.19 + Megatron Bridge.
Usage:
    from enable_full_iter_graph import enable_full_iteration_graph
    cfg = my_recipe()
    enable_full_iteration_graph(cfg)
"""

# Layers that the full-iteration graph should build static buffers for. On 0.18+ the
# per-layer list lives in cuda_graph_modules; with the full_iteration impl it tells the
# capture which submodules participate, so list the dense ones explicitly.
_FULL_ITER_MODULES = ["attn", "mlp"]


def enable_full_iteration_graph(cfg, warmup_steps: int = 3):
    m = cfg.model

    # one CUDA graph for the whole training iteration (0.18+ spelling;
    # 0.16/0.17 used cuda_graph_impl="local" + cuda_graph_scope=["full_iteration"])
    m.cuda_graph_impl = "full_iteration"
    m.cuda_graph_modules = list(_FULL_ITER_MODULES)
    m.cuda_graph_warmup_steps = warmup_steps

    # graph-safe RNG, required with any CUDA graph
    m.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # NaN checks do a device->host sync, which cannot live inside a captured iteration
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False

    # don't overlap param all-gather with the optimizer step under full-iteration capture
    cfg.optimizer.overlap_param_gather_with_optimizer_step = False

    # NOTE: seq_length / micro_batch_size must stay constant for the whole run.
    return cfg


if __name__ == "__main__":
    import sys
    print("import this module and call enable_full_iteration_graph(cfg)", file=sys.stderr)
