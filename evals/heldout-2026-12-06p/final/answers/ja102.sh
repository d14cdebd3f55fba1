#!/usr/bin/env bash
# A/B: eager vs TE-scoped CUDA graphs for Llama 3.1 8B (Bridge, mcore 0.19), 8xH100
# TP=1 PP=1 seq 8192 MBS 1.
#
# Graph config used for the "graphs" arm (overrides passed to run_recipe.py):
#   model.cuda_graph_impl=transformer_engine
#   model.cuda_graph_modules=[attn]          # widen to [attn,mlp] after this A/B
#   model.cuda_graph_warmup_steps=3
#   model.use_te_rng_tracker=true rng.te_rng_tracker=true   # graph-safe RNG, required
# Keep seq_length / micro_batch_size fixed -- graphs need static shapes.
# (Profile eager with nsys first; only bother if you see host/launch gaps.)
set -euo pipefail

ITERS=20
COMMON="--model llama31_8b --mode pretrain --dataset mock -sl 8192 -mb 1 -tp 1 \
  train.train_iters=${ITERS} model.pipeline_model_parallel_size=1 logger.log_interval=1"

GRAPHS="model.cuda_graph_impl=transformer_engine model.cuda_graph_modules=[attn] \
  model.cuda_graph_warmup_steps=3 model.use_te_rng_tracker=true rng.te_rng_tracker=true"

run () {
  local tag=$1; shift
  torchrun --nproc-per-node=8 scripts/training/run_recipe.py $COMMON "$@" 2>&1 | tee "log_${tag}.txt"
}

run eager
run graphs $GRAPHS

# Mean step time over the whole run, so both arms see exactly the same window.
avg () {
  grep -oP 'elapsed time per iteration \(ms\): \K[0-9.]+' "$1" | awk '{s+=$1;n++} END {printf "%.1f ms (%d iters)\n", s/n, n}'
}
echo "eager : $(avg log_eager.txt)"
echo "graphs: $(avg log_graphs.txt)"
