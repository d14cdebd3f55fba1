#!/usr/bin/env bash
# ab_sweep_cudagraphs.sh: eager vs per-layer CUDA graphs for Llama 3.1 8B
# (Megatron Bridge, megatron-core 0.19, 8xH100, TP=1 PP=1, seq 8192, MBS 1)
#
# Recommendation: start with megatron-core's own per-layer graphs (cuda_graph_impl=local) on the
# attention block only. MCore's CudaGraphManager captures each layer's attention on its first
# calls after warmup, needs nothing beyond megatron-core, and is the lightest way to see whether
# this shape is launch-bound at all. Widen to attn+mlp only if attn alone wins the A/B.
#
# Before any of this: profile eager steps; if the GPU never idles between kernels the step is
# compute-bound and graphs cannot help. Keep seq_length and micro_batch_size fixed in every run.
#
# GNU parallel is used as a queue (-j1): variants run one after another on the same 8 GPUs,
# each gets its own log, and a failed variant doesn't stop the sweep ({=2 uq() =} splits the
# override column into separate arguments).

set -uo pipefail
LOGDIR=${LOGDIR:-ab_logs}; mkdir -p "$LOGDIR"
STEPS=${STEPS:-80}

COMMON="--model llama31_8b --mode pretrain -sl 8192 -mb 1 -tp 1 -pp 1 -ms $STEPS rng.seed=1234"
# graph-safe RNG for any graph; scope cleared because the stock recipe sets cuda_graph_scope="full"
GRAPH="model.cuda_graph_scope=null model.cuda_graph_warmup_steps=3 model.use_te_rng_tracker=true rng.te_rng_tracker=true"

cat > "$LOGDIR/variants.txt" <<EOF
eager	model.cuda_graph_impl=none
local_attn	model.cuda_graph_impl=local $GRAPH model.cuda_graph_modules=[attn]
local_attn_mlp	model.cuda_graph_impl=local $GRAPH model.cuda_graph_modules=[attn,mlp]
EOF

parallel -j1 --colsep '\t' --joblog "$LOGDIR/joblog.tsv" \
  "torchrun --nproc-per-node 8 scripts/training/run_recipe.py $COMMON {=2 uq() =} > $LOGDIR/{1}.log 2>&1" \
  :::: "$LOGDIR/variants.txt"

# Compare steady state only (warmup and the capture step excluded), median step time with a CI,
# and loss parity vs eager:
for v in local_attn local_attn_mlp; do
  echo "== $v"
  skill-tools logs "$LOGDIR/eager.log" "$LOGDIR/$v.log" --json | python -c \
    'import json,sys; d=json.load(sys.stdin); c=d.get("comparison",{}); print(c.get("verdict"), c.get("speedup"), c.get("speedup_ci95"))'
done
# Keep the narrowest variant whose speedup CI is clearly above 1.0; otherwise stay eager.
