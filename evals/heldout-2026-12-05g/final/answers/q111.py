#!/usr/bin/env python
"""Full-iteration CUDA graph for Megatron Bridge on megatron-core 0.16.x (also valid for 0.17.x).

On this era there is no cuda_graph_impl="full_iteration" and no cuda_graph_modules key
(both arrived in 0.18). One graph for the whole training iteration is spelled
    cuda_graph_impl="local" + cuda_graph_scope=["full_iteration"]
and the optimizer step stays outside the graph.

Usage: import and call apply_full_iteration_legacy(cfg) on the recipe's ConfigContainer,
or run this file to print the override lines it applies.
"""

import sys

from packaging.version import Version


def _check_era():
    import megatron.core as mcore

    v = Version(mcore.__version__)
    if not (Version("0.16.0") <= v < Version("0.18.0")):
        sys.exit(
            f"megatron-core {v}: this file is for 0.16-0.17. On 0.18+ use "
            'cuda_graph_impl="full_iteration" with cuda_graph_modules=[] instead.'
        )


def apply_full_iteration_legacy(cfg):
    _check_era()
    m = cfg.model
    m.cuda_graph_impl = "local"                       # MCore's FullCudaGraphWrapper path
    m.cuda_graph_scope = ["full_iteration"]           # alone in the list
    m.cuda_graph_warmup_steps = 3                     # eager steps before the capture step
    m.use_te_rng_tracker = True                       # graph-safe RNG
    cfg.rng.te_rng_tracker = True
    # Host syncs are not allowed inside the captured iteration:
    cfg.rerun_state_machine.check_for_nan_in_loss = False   # Bridge asserts if this stays True
    cfg.ddp.check_for_nan_in_grad = False
    return cfg


LINES = """\
model.cuda_graph_impl=local
model.cuda_graph_scope=[full_iteration]
model.cuda_graph_warmup_steps=3
model.use_te_rng_tracker=true
rng.te_rng_tracker=true
rerun_state_machine.check_for_nan_in_loss=false
ddp.check_for_nan_in_grad=false"""

if __name__ == "__main__":
    _check_era()
    print(LINES)

# Also keep seq_length and micro-batch size fixed, and leave headroom: the whole
# iteration's activations stay in the graph pool.
# Success in the log: "Capture CUDA graph for training!!!" / "CUDA graph capture done for
# training!!!". Time replay steps after the capture step against eager with the same seed.
