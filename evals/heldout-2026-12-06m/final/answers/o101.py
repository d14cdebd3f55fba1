"""cuda_graph_overrides.py -- first CUDA graph bring-up for Llama 3.1 8B on Megatron Bridge.

Target: megatron-core 0.19, 8x H100, TP=1 PP=1 (pure DP=8), seq 8192, MBS 1.

Usage (from your launcher, before handing cfg to pretrain()):

    from megatron.bridge.recipes.llama import llama31_8b_pretrain_config
    from cuda_graph_overrides import enable_te_attn_graphs, profile_window

    cfg = llama31_8b_pretrain_config()
    cfg.train.micro_batch_size = 1
    cfg.model.seq_length = cfg.dataset.seq_length = 8192
    enable_te_attn_graphs(cfg)

Why this shape of config:

* Dense model -> Transformer Engine scoped graphs (``make_graphed_callables`` per layer).
  Start with ``attn`` only; widen to ``["attn", "mlp"]`` later if the A/B says so.
* On 0.18+ the per-layer coverage key is ``cuda_graph_modules``. The Llama recipes still
  assign the deprecated ``cuda_graph_scope = "full"``; MCore refuses to see both set
  ("cuda_graph_scope and cuda_graph_modules cannot be set together."), so null it.
* Bridge asserts the TE RNG tracker whenever ``cuda_graph_impl != "none"``; set it on the
  model and in ``cfg.rng`` so the two stay in sync.
* Graphs bake in tensor shapes: seq_length and micro_batch_size must not change between
  steps (no variable-length batches, no MBS ramp-up).
"""

from megatron.bridge.training.config import ConfigContainer, ProfilingConfig


def enable_te_attn_graphs(cfg: ConfigContainer, widen_to_mlp: bool = False) -> ConfigContainer:
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = None                      # recipe sets "full"; clear the legacy key
    cfg.model.cuda_graph_modules = ["attn", "mlp"] if widen_to_mlp else ["attn"]
    cfg.model.cuda_graph_warmup_steps = 3                  # eager warmup iterations before capture

    # Graph-safe RNG (Bridge gpt_provider asserts this when graphs are on)
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # Static shapes
    cfg.train.micro_batch_size = 1
    cfg.model.seq_length = 8192
    cfg.dataset.seq_length = 8192
    return cfg


def profile_window(cfg: ConfigContainer, start: int = 10, end: int = 12) -> ConfigContainer:
    """nsys window for the eager baseline: look for host/launch gaps between kernels first."""
    cfg.profiling = ProfilingConfig(
        use_nsys_profiler=True,
        profile_step_start=start,
        profile_step_end=end,
        profile_ranks=[0],
    )
    return cfg


# ---------------------------------------------------------------------------
# A/B procedure
# ---------------------------------------------------------------------------
# 1. Eager baseline: cuda_graph_impl="none", profile_window(cfg); confirm in nsys that there
#    are visible CPU launch gaps. At TP=1 / seq 8192 an 8B layer is fairly compute-heavy,
#    so the upside may be modest -- that is exactly why you measure.
# 2. Graph run: enable_te_attn_graphs(cfg).
# 3. Run both with cfg.train.train_iters = 10 and compare the mean step time over all
#    10 logged iterations (iterations 1-10) between the eager and graph runs; averaging the
#    whole short run smooths out per-step noise from the dataloader.
# 4. If attn-only helps, repeat with widen_to_mlp=True and keep whichever is faster and
#    still fits in memory.
#
# Optional: if you run with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, also export
# NCCL_GRAPH_REGISTER=0.
