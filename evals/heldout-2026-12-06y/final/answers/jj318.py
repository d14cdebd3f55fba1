"""CUDA-graph fix-up for the Qwen MoE recipe (megatron-core 0.19 / Bridge).

I ran `skill-tools validate --json` on the config you pasted; it reports:

  [error] moe-and-moe-router: cuda_graph_modules must not contain both moe and moe_router.
  [error] te-rng-tracker-required: Transformer engine's RNG tracker is required for cudagraphs
  [warn ] cuda_graph_scope is deprecated on 0.18+, use cuda_graph_modules

Fixes below. For a dropless MoE, `moe` is out (drop-and-pad only) and `moe_preprocess` must
come with `moe_router`. I set the new key and mirror it in the old one so the same
override file keeps working if someone runs it against a pre-0.18 container (0.19
just warns about the old key and uses cuda_graph_modules).
"""

from megatron.bridge.training.config import ConfigContainer


def apply_cuda_graph_overrides(cfg: ConfigContainer) -> ConfigContainer:
    modules = ["moe_router", "moe_preprocess"]

    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_modules = list(modules)   # 0.18+ key
    cfg.model.cuda_graph_scope = list(modules)     # legacy key, same value (ignored on 0.19)
    cfg.model.cuda_graph_warmup_steps = 3

    # Required for any CUDA graph in Bridge; set both so they can't disagree.
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg


# Next steps:
#   skill-tools validate --json my_config.py --mcore-version 0.19.2   # should be clean now
#   then an eager vs graph A/B on steady-state steps (skill-tools bench) before the real launch.
