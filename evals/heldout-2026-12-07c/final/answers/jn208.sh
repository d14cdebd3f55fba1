#!/usr/bin/env bash
# Mixtral-style MoE, 8xH100, PP=8, TE per-layer CUDA graphs on attn.
#
# Why it OOMs inside make_graphed_callables:
#   With PP>1, MCore's TECudaGraphHelper captures every graphed layer once per
#   microbatch of the step (num_microbatches = get_num_microbatches()), each with
#   its own static input/output/grad buffers. PP=8 on 8 GPUs means DP=1, so
#   GBS 128 / (MBS 1 * DP 1) = 128 microbatches x 4 attn layers/stage = 512
#   fwd+bwd graph pairs per rank. Eager only ever holds the in-flight ones,
#   which is why eager sits at 40% and capture blows past 80 GB.
#
# Fix, in order of impact:
#   1. fewer microbatches (MBS 2 -> 64 microbatches; or lower GBS)
#   2. TE >= 2.7 so MCore turns on _reuse_graph_input_output_buffers
#   3. allocator: expandable segments against fragmentation
#   4. keep the scope at attn only
# Graphs need headroom. If it still doesn't fit after this, run eager.
set -euo pipefail

# --- allocator ---------------------------------------------------------------
# Expandable segments stop the graph pools from fragmenting the caching allocator.
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
# NOTE: NCCL_GRAPH_REGISTER=0 is only needed for the MCore *local* graph manager
# (cuda_graph_impl=local) on pre-Blackwell GPUs. TE-scoped graphs don't use NCCL
# graph buffer registration for the captured attn, so leave registration on here;
# disabling it costs a little collective bandwidth for nothing.
# export NCCL_GRAPH_REGISTER=0

python - <<'PY'
import transformer_engine as te
from packaging.version import Version
v = Version(te.__version__.split("+")[0])
print(f"TE {v}")
if v < Version("2.7.0"):
    print("WARNING: TE < 2.7: no graph input/output buffer reuse; upgrade before enabling graphs")
PY

MBS=2          # was 1: halves the number of captured microbatch graphs
GBS=128

torchrun --nproc-per-node 8 pretrain_gpt.py \
    "${MODEL_ARGS[@]}" \
    --pipeline-model-parallel-size 8 \
    --micro-batch-size "${MBS}" \
    --global-batch-size "${GBS}" \
    --cuda-graph-impl transformer_engine \
    --cuda-graph-modules attn \
    --cuda-graph-warmup-steps 3 \
    --te-rng-tracker \
    "$@"

# megatron-core 0.16/0.17: use --cuda-graph-scope attn instead of --cuda-graph-modules attn.
# After capture, look for "Rank N: 4 graphable layers." and
# "Time spent in CUDA Graphs capture on rank N" on every stage, then A/B steady-state
# step time against an eager run with the same MBS/GBS.
