# full_iteration_graph.py -- Megatron Bridge + megatron-core 0.19: capture fwd+bwd of the whole
# iteration as one CUDA graph (the largest launch-overhead cut; the optimizer step stays eager
# unless you also set optimizer_cuda_graph).
#
# Usage:   cfg = my_recipe(...); enable_full_iteration_graph(cfg); pretrain(cfg, forward_step)
#
# Megatron-LM equivalent (take any --cuda-graph-modules / --cuda-graph-scope out of the launch first):
#   --cuda-graph-impl full_iteration --no-check-for-nan-in-loss-and-grad --te-rng-tracker


def enable_full_iteration_graph(cfg):
    m = cfg.model

    # 0.18+ spelling: full iteration is an impl of its own, and it takes no modules.
    # MCore asserts 'cuda_graph_modules must be empty when cuda_graph_impl="full_iteration".'
    m.cuda_graph_impl = "full_iteration"
    m.cuda_graph_modules = []
    m.cuda_graph_scope = None            # stock recipes set "full" or a list; clear the legacy key
    m.cuda_graph_warmup_steps = 3        # eager steps before capture (>= 1; lazy init must not be captured)

    # Any graph needs Transformer Engine's graph-safe RNG tracker (both keys in Bridge).
    m.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # The NaN checks call .item() (a host sync) on loss / grad norm, which cannot happen inside one
    # captured iteration. Bridge asserts
    #   "check_for_nan_in_loss must be disabled when using full_iteration CUDA graph."
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False

    # Do not overlap the next param all-gather with the optimizer step: it is issued outside the
    # captured iteration and the graph would wait on it.
    cfg.optimizer.overlap_param_gather_with_optimizer_step = False
    if getattr(cfg, "comm_overlap", None) is not None:   # Bridge applies this one on top
        cfg.comm_overlap.overlap_param_gather_with_optimizer_step = False

    _self_check(cfg)
    return cfg


def _self_check(cfg):
    m = cfg.model
    assert not m.cuda_graph_modules, "full_iteration takes no modules"
    assert m.use_te_rng_tracker and cfg.rng.te_rng_tracker, "TE RNG tracker required"
    assert not cfg.rerun_state_machine.check_for_nan_in_loss, "loss NaN check must be off"
    assert not cfg.ddp.check_for_nan_in_grad, "grad NaN check must be off"
    # static shapes: a fixed seq length and micro-batch size every step
    assert cfg.train.micro_batch_size is not None and cfg.dataset.seq_length is not None
    assert not getattr(m, "cpu_offloading", False) or m.cuda_graph_impl == "full_iteration"


# Before launching: `skill-tools validate --json config.yaml` (dump the config first).
# In the log, look for "Capture CUDA graph for training!!!" then "CUDA graph capture done for training!!!".
# Then A/B steady-state step time and loss against an eager run with the same seed:
#   skill-tools logs eager.log graph.log --json
#
# Limits to know about:
#   - variable sequence lengths / unpadded packing: no (static shapes only)
#   - dropless MoE: full-iteration capture fails (token counts are copied to the host); use TE
#     per-layer graphs on attn, moe_router, moe_preprocess instead
#   - memory: the whole iteration's activations live in the graph pool; keep headroom
