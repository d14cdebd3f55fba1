#!/usr/bin/env bash
# cg_ab.sh -- eager vs TE-scoped CUDA graph A/B for Llama 3.1 8B (Bridge, mcore 0.19)
# 8xH100, TP=1 PP=1, seq 8192, MBS 1
#
# Notes:
#  - transformer_engine impl, attention scope first; widen to attn,mlp afterwards if it helps
#  - TE RNG tracker is mandatory with graphs (both model + rng side)
#  - seq len / MBS must stay constant, graphs replay fixed shapes
set -euo pipefail

RECIPE=${RECIPE:-llama31_8b_pretrain_config}
ITERS=${ITERS:-30}
COMMON="train.train_iters=${ITERS} model.seq_length=8192 train.micro_batch_size=1 \
  model.tensor_model_parallel_size=1 model.pipeline_model_parallel_size=1 logger.log_interval=1"

run() {
  local tag=$1; shift
  torchrun --nproc_per_node=8 scripts/performance/run_recipe.py --recipe "$RECIPE" \
    $COMMON "$@" 2>&1 | tee "log_${tag}.txt"
}

# A: eager baseline (profile this first; only continue if you see host/launch gaps)
run eager model.cuda_graph_impl=none

# B: TE scoped graphs, attention only
run cg_attn \
  model.cuda_graph_impl=transformer_engine \
  'model.cuda_graph_modules=[attn]' \
  model.cuda_graph_warmup_steps=3 \
  model.use_te_rng_tracker=true \
  rng.te_rng_tracker=true

# Compare mean iteration time over the whole run (iters 1..ITERS) so the
# graph setup cost is amortized the same way it would be in a real job.
for t in eager cg_attn; do
  awk -v t=$t '/elapsed time per iteration \(ms\)/ {
      for (i=1;i<=NF;i++) if ($i=="(ms):") { s+=$(i+1); n++ } }
    END { printf "%-8s mean step %.1f ms over %d iters\n", t, s/n, n }' "log_${t}.txt"
done
