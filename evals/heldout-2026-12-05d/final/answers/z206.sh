#!/bin/bash
# run_mixtral_pp8_graphs.sh -- srun + enroot/pyxis wrapper
#
# Why it OOMs: with PP>1 the TE graph helper captures one graph per graphed layer *per
# micro-batch* (sample_args = layers x num_microbatches), each with its own static
# input/output/grad buffers and pool memory. PP=8, DP=1, GBS 128, MBS 1 -> 128 micro-batches
# x 4 layers/stage = 512 graph pairs per rank. Eager only keeps ~PP micro-batches of
# activations alive, which is why eager sits at 40% HBM.
#
# Fit plan (graphs are a throughput feature for runs with headroom, not a way to fit):
#   - fewer micro-batches: MBS 1 -> 2 halves the number of captured graphs (128 -> 64)
#   - keep the scope narrow: attn only
#   - newer TE (>= 2.7) so MCore turns on _reuse_graph_input_output_buffers
#   - expandable segments against post-capture fragmentation (set below)
#   - if it still does not fit: --cuda-graph-impl none
#SBATCH --job-name=mixtral-pp8-graphs
#SBATCH --nodes=1
#SBATCH --gpus-per-node=8
#SBATCH --ntasks-per-node=1
#SBATCH --time=02:00:00

set -euo pipefail

CONTAINER=${CONTAINER:-nvcr.io/nvidia/nemo:25.11}
MOUNTS=${MOUNTS:-$PWD:/workspace}

export CUDA_DEVICE_MAX_CONNECTIONS=1
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True

srun --container-image="$CONTAINER" \
     --container-mounts="$MOUNTS" \
     --container-workdir=/workspace/Megatron-LM \
     --export=ALL \
     bash -c '
torchrun --nproc-per-node 8 pretrain_gpt.py \
  --pipeline-model-parallel-size 8 \
  --micro-batch-size 2 \
  --global-batch-size 128 \
  --cuda-graph-impl transformer_engine \
  --cuda-graph-modules attn \
  --cuda-graph-warmup-steps 3 \
  --te-rng-tracker \
  ${MODEL_ARGS:-} ${DATA_ARGS:-}
'
# 0.16-0.17: replace --cuda-graph-modules attn with --cuda-graph-scope attn
# Check the log for "Rank N: K graphable layers." on every stage and the capture time,
# then compare steady-state step time with an eager run.
