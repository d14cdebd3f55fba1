# /// script
# requires-python = ">=3.10"
# dependencies = []   # run inside your Megatron-Bridge container (megatron-core 0.16)
# ///
"""fix_full_iteration_nan_check.py

Your log:
    AssertionError: check_for_nan_in_loss must be disabled when using full_iteration CUDA graph.
    Set rerun_state_machine.check_for_nan_in_loss=False.

Cause: Bridge's ConfigContainer validation refuses full-iteration graphs
(cuda_graph_impl="local" + cuda_graph_scope=["full_iteration"]) while the loss NaN check is on.
That check (and the DDP grad NaN check) reads a value back to the host every step, and a
host sync can't live inside one captured forward+backward graph.

Change: turn BOTH NaN checks off and keep the 0.16 spelling of full iteration. On megatron-core
0.16 don't switch to cuda_graph_impl="full_iteration" / cuda_graph_modules. Those are 0.18+ keys.
Megatron-LM launch equivalent: --no-check-for-nan-in-loss-and-grad (one flag for both).

Usage:
    uv run fix_full_iteration_nan_check.py megatron.bridge.recipes.llama.llama3:llama3_8b_pretrain_config
or import `apply()` in your own launch script before calling pretrain(cfg, forward_step).
"""
import importlib
import sys


def apply(cfg):
    # full iteration, megatron-core 0.16-0.17 spelling (unchanged)
    cfg.model.cuda_graph_impl = "local"
    cfg.model.cuda_graph_scope = ["full_iteration"]

    # the fix: no host-syncing NaN checks inside the captured iteration
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False

    # any CUDA graph needs TE's graph-safe RNG tracker (both keys)
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg


def main(target: str) -> None:
    module_name, fn_name = target.split(":")
    cfg = getattr(importlib.import_module(module_name), fn_name)()
    apply(cfg)
    print("cuda_graph_impl        =", cfg.model.cuda_graph_impl)
    print("cuda_graph_scope       =", cfg.model.cuda_graph_scope)
    print("check_for_nan_in_loss  =", cfg.rerun_state_machine.check_for_nan_in_loss)
    print("check_for_nan_in_grad  =", cfg.ddp.check_for_nan_in_grad)
    # What you lose: no automatic NaN/Inf detection. Watch loss and grad norm in the logs yourself,
    # or keep the checks and use per-layer TE graphs (cuda_graph_impl="transformer_engine",
    # cuda_graph_scope=["attn", "mlp"]) instead of full iteration.
    # After relaunch, look for "Capture CUDA graph for training!!!" and
    # "CUDA graph capture done for training!!!" in the log.


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "megatron.bridge.recipes.llama.llama3:llama3_8b_pretrain_config")
