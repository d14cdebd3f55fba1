"""clearml_full_iter.py: queue a Megatron Bridge run with a full-iteration CUDA graph (megatron-core 0.19).

    python clearml_full_iter.py --queue h100x8

The ClearML task stores the override dict as hyperparameters (editable in the UI before
re-queueing) and then runs Bridge's run_recipe.py with them as trailing KEY=VALUE overrides.
"""

import argparse
import subprocess
import sys

from clearml import Task

FULL_ITERATION_OVERRIDES = {
    # 0.18+ API: impl=full_iteration, and the per-layer module list must be empty
    "model.cuda_graph_impl": "full_iteration",
    "model.cuda_graph_scope": "null",          # clear the recipe's "full" so nothing is migrated
    "model.cuda_graph_modules": "[]",
    "model.cuda_graph_warmup_steps": 3,        # eager warmup iterations before capture
    # graph-safe RNG
    "model.use_te_rng_tracker": "true",
    "rng.te_rng_tracker": "true",
    # The grad NaN check runs inside the captured backward/grad-reduce and syncs with the host:
    # it has to go.
    "ddp.check_for_nan_in_grad": "false",
    # The loss NaN check is evaluated by the rerun state machine on the reduced loss after the
    # forward/backward returns, i.e. outside the captured region, so it can stay on and keep
    # protecting the run.
    "rerun_state_machine.check_for_nan_in_loss": "true",
    # param all-gather must not straddle the captured region
    "optimizer.overlap_param_gather_with_optimizer_step": "false",
    # static shapes
    "dataset.seq_length": 8192,
    "train.micro_batch_size": 1,
}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queue", default="h100x8")
    ap.add_argument("--recipe", default="llama31_8b_pretrain_config")
    ap.add_argument("--iters", type=int, default=40)
    args = ap.parse_args()

    task = Task.init(project_name="bridge/cuda-graphs", task_name=f"{args.recipe}-full-iteration")
    overrides = task.connect(dict(FULL_ITERATION_OVERRIDES), name="bridge_overrides")
    task.execute_remotely(queue_name=args.queue, exit_process=True)

    cmd = [
        "torchrun", "--nproc-per-node", "8", "scripts/training/run_recipe.py",
        "--recipe", args.recipe, "--mode", "pretrain", f"train.train_iters={args.iters}",
        *[f"{k}={v}" for k, v in overrides.items()],
    ]
    print(" ".join(cmd), flush=True)
    # Judge speed on iterations after "CUDA graph capture done for training!!!", never on the
    # capture iteration; compare against an eager run with the same seed.
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main())
