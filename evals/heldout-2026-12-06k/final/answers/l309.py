# debug_nan_overrides.py -- Bridge overrides for bisecting the iter-90 NaN
# (Qwen3-235B, TP2 PP8 VPP4 EP8, EP overlap, TE graphs on attn)
#
# Plan: each variant changes ONE thing vs the failing run; same seed + data.
# Compare per-iteration loss / grad-norm against the eager run (graphs off).

BASE = {
    "model.cuda_graph_impl": "transformer_engine",
    "model.cuda_graph_modules": ["attn"],
    "model.overlap_moe_expert_parallel_comm": True,
    "rng.seed": 1234,
    "train.train_iters": 120,
}

VARIANTS = {
    # A/B anchor: graphs off -> expected to stay finite
    "eager": {"model.cuda_graph_impl": "none"},
    # Partial graphs + EP-overlap schedule interaction (Megatron-LM#5966)
    "no_ep_overlap": {"model.overlap_moe_expert_parallel_comm": False},
    # RNG: replayed attention dropout draws from the TE tracker's graph-safe
    # state; use the default Megatron tracker to rule out RNG-state reuse as
    # the source of the divergence.
    "plain_rng": {"model.use_te_rng_tracker": False, "rng.te_rng_tracker": False},
    # wgrad fusion toggling on replay (TE PR #1204); keep fusion ON if delayed wgrad is used
    "no_delay_wgrad": {"model.delay_wgrad_compute": False},
}

# Known replay-numerics causes to check against your TE/MCore versions:
#   - TE graph parameter order under PP 1F1B / VPP (TE PRs #1138, #1233)
#   - fuse_wgrad_accumulation not toggled on replay (TE PR #1204)
#   - validation replaying training graphs (Megatron-LM PR #6992)
# After bisecting: upgrade TE + megatron-core, rerun "eager" vs BASE and overlay
# the loss curves. Keep graphs off for this combination until they match.

if __name__ == "__main__":
    for name, ov in VARIANTS.items():
        merged = {**BASE, **ov}
        print(name, " ".join(f"{k}={v}" for k, v in merged.items()))
