#!/bin/bash
#OAR -n bridge-te-graphs-64g
#OAR -l /nodes=8/gpu=8,walltime=04:00:00
#OAR -O logs/%jobid%.out
#OAR -E logs/%jobid%.err
#
# ---------------------------------------------------------------------------
# Why it hangs after "[after training is done]"
# ---------------------------------------------------------------------------
# Captured CUDA graphs keep references to the NCCL buffers/communicators used
# by the collectives inside them. While any graph object is alive,
# torch.distributed.destroy_process_group() blocks (pytorch/pytorch#115388),
# so every rank sits in teardown until the scheduler kills the job.
# Reports: Megatron-Bridge#3395, #3595, #2955.
#
# What fixes it (upgrade, don't work around with timeouts):
#  * Bridge deletes the graphs at the end of train() before teardown:
#    _delete_cuda_graphs() drops FullCudaGraphWrapper's "training" graph, the
#    optimizer graph and the TE per-layer graphs (PR #3459). The
#    "No CUDA Graphs were created to delete." assert on runs that never
#    captured is avoided by a graphs_created() guard (proposed in PR #3488;
#    present from v0.4.2).
#  * MCore's TECudaGraphHelper.delete_cuda_graphs() calls graph.reset() only
#    with TE >= 2.10 (log: "N graphs deleted with explicit reset, ...");
#    with older TE it can only drop references ("... without explicit
#    reset"), which is not always enough -> TE >= 2.10.
#  * Final validation: with full_iteration, the final evaluate() captures
#    a *validation* graph after train() already cleaned up, and that graph
#    was still alive at destroy_global_state(). Bridge PR #5291 also calls
#    _delete_cuda_graphs() in _finish_train() right before
#    destroy_global_state(). That fix is newer than v0.6.0: use a Bridge
#    build that contains it.
#
# Stop-gap if you can't upgrade yet: turn graphs off for the affected
# recipe only (Bridge did the same for Llama3.1 405B NVFP4 on GB300), or
# skip the final validation on the full-iteration recipe.
# ---------------------------------------------------------------------------

set -euo pipefail

# 1) Stack that has all three fixes: Bridge with PR #3459 + #5291, matching
#    megatron-core, TE >= 2.10.
python - <<'PY'
import transformer_engine as te
from packaging.version import Version
v = Version(te.__version__.split("+")[0])
assert v >= Version("2.10"), f"TE {v} cannot reset graphs explicitly; upgrade to >= 2.10"
PY

GRAPHS_WORKAROUND=${GRAPHS_WORKAROUND:-0}   # 1 = stop-gap: graphs off for this recipe

OVERRIDES=(
  model.cuda_graph_impl=transformer_engine
  model.use_te_rng_tracker=true
  rng.te_rng_tracker=true
)
if [[ "$GRAPHS_WORKAROUND" == 1 ]]; then
  OVERRIDES=(model.cuda_graph_impl=none)
fi

HOSTS=$(sort -u "$OAR_NODEFILE" | paste -sd, -)
MASTER_ADDR=$(head -n1 "$OAR_NODEFILE")
mpirun -np 8 --host "$HOSTS" --map-by ppr:1:node \
  -x MASTER_ADDR="$MASTER_ADDR" -x MASTER_PORT=29500 \
  torchrun --nnodes 8 --nproc-per-node 8 --rdzv-backend c10d \
    --rdzv-endpoint "$MASTER_ADDR:29500" \
    scripts/training/run_recipe.py --recipe "${RECIPE:?set RECIPE}" "${OVERRIDES[@]}"

# Expected end of log with the fixed stack:
#   [after training is done]
#   Deleting CUDA graphs
#   Rank 0: 64 graphs deleted with explicit reset, 0 graphs deleted without explicit reset.
# ...and the job exits instead of idling until walltime.
