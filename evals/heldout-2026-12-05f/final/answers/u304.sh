#!/bin/bash
#SBATCH --job-name=bridge-te-graphs
#SBATCH --nodes=8
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
#SBATCH --time=04:00:00
#
# ---------------------------------------------------------------------------
# WHY THE OLD JOB HUNG AFTER "[after training is done]"
#
#  * Captured CUDA graphs (TE per-layer graphs from cuda_graph_impl=transformer_engine,
#    and the FullCudaGraphWrapper graph in full-iteration runs) keep references to
#    NCCL buffers. torch.distributed.destroy_process_group() then blocks forever
#    (pytorch/pytorch#115388) -> the job idles until the SLURM time limit.
#  * Bridge fixed it by deleting the graphs before teardown: _delete_cuda_graphs() at the
#    end of train() (PR #3459, with the PR #3488 guard for scoped runs that never created
#    graphs: "No CUDA Graphs were created to delete."). MCore resets every TE graph
#    explicitly when TE >= 2.10 (log: "... graphs deleted with explicit reset").
#  * Full-iteration runs that end with a final validation have a second trap: the final
#    evaluation recaptures a *validation* graph after train() already cleaned up.
#    PR #5291 deletes that one in _finish_train() before destroy_global_state().
#    Both fixes ship in Megatron-Bridge v0.6.0, so the version pin below covers both
#    of your cases.
#
#  -> Fix = run on a container with Bridge >= v0.6.0, MCore 0.19.x, TE >= 2.10.
#     The guard below only makes a regression cheap instead of burning the allocation.
# ---------------------------------------------------------------------------

set -euo pipefail

python - <<'PY'
from importlib.metadata import version
from packaging.version import Version as V
bridge = V(version("megatron-bridge"))
te = V(version("transformer_engine").split("+")[0])
assert bridge >= V("0.6.0"), f"megatron-bridge {bridge} < 0.6.0: graphs are not deleted before teardown"
assert te >= V("2.10.0"), f"transformer_engine {te} < 2.10: no explicit CUDA graph reset"
print(f"ok: megatron-bridge {bridge}, transformer_engine {te}")
PY

LOG=logs/${SLURM_JOB_ID}.log
mkdir -p logs

srun --kill-on-bad-exit=1 python scripts/training/run_recipe.py \
    --recipe my_recipe \
    model.cuda_graph_impl=transformer_engine \
    model.use_te_rng_tracker=true rng.te_rng_tracker=true \
    2>&1 | tee "$LOG" &
TRAIN_PID=$!

# Teardown watchdog: once training is done, give teardown 10 minutes, then dump stacks
# and cancel instead of idling until --time.
(
  while ! grep -q "\[after training is done\]" "$LOG" 2>/dev/null; do sleep 30; done
  sleep 600
  if kill -0 "$TRAIN_PID" 2>/dev/null; then
    echo "teardown hang: graphs still holding NCCL? dumping stacks" >&2
    srun --overlap --ntasks-per-node=1 bash -c 'for p in $(pgrep -u "$USER" -f run_recipe.py); do py-spy dump --pid $p; done' || true
    scancel "$SLURM_JOB_ID"
  fi
) &

wait "$TRAIN_PID"

# Expected tail of a healthy run, before the NCCL destroy lines:
#   Deleting CUDA graphs
#   Rank 0: 96 graphs deleted with explicit reset, 0 graphs deleted without explicit reset.
#
# Stop-gap if you must run an older stack: launch that recipe with
# model.cuda_graph_impl=none (as done for Llama3.1 405B NVFP4 on GB300).
