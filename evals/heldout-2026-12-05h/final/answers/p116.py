"""Why the 0.19 example fails on megatron-core 0.17, and an era adapter that fixes it.

cuda_graph_modules and cuda_graph_impl="full_iteration" are megatron-core 0.18+ API.
In 0.16-0.17:
  * cuda_graph_impl only accepts "none", "local", "transformer_engine"
    ("Invalid cuda graph implementation: full_iteration");
  * the list key is cuda_graph_scope (cuda_graph_modules is an unknown field -> TypeError).

In 0.17 a full-iteration graph is the MCore "local" implementation, asked for with the
"full" scope value. Keep the NaN checks off, because a host sync inside the captured
iteration breaks capture.
"""

from packaging.version import Version

import megatron.core


def apply_full_iteration_cuda_graph(cfg):
    """Write the full-iteration CUDA-graph keys that match the installed megatron-core."""
    mcore = Version(megatron.core.__version__)
    if mcore >= Version("0.18.0"):
        cfg.model.cuda_graph_impl = "full_iteration"
        cfg.model.cuda_graph_scope = None
        cfg.model.cuda_graph_modules = []
    else:
        # 0.16 / 0.17 spelling
        cfg.model.cuda_graph_impl = "local"
        cfg.model.cuda_graph_scope = "full"
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False
    return cfg


# usage in the recipe:
#   cfg = apply_full_iteration_cuda_graph(cfg)
#   pretrain(cfg, forward_step)
