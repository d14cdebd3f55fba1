#!/usr/bin/env bash
# A/B: eager vs TE-scoped CUDA graphs for Llama 3.1 8B (Megatron Bridge, megatron-core 0.19)
# 8xH100, TP=1 PP=1, seq 8192, MBS 1.
#
# Recommendation: start with cuda_graph_impl=transformer_engine, modules=[attn].
# Widen to [attn,mlp] only if this A/B shows a win.
set -euo pipefail

RECIPE=${RECIPE:?set RECIPE to your llama 3.1 8B pretrain recipe function}
ITERS=30
COMMON=(
  --recipe "$RECIPE" --mode pretrain --dataset mock
  -sl 8192 -mb 1 -tp 1 -pp 1 -ms "$ITERS"
  logger.log_interval=1
  rng.seed=1234
)

# Graph settings (0.18+ spelling). The stock llama recipes set cuda_graph_scope="full",
# which must be cleared when cuda_graph_modules is set or __post_init__ asserts.
GRAPHS=(
  model.cuda_graph_impl=transformer_engine
  model.cuda_graph_scope=null
  "model.cuda_graph_modules=[attn]"
  model.cuda_graph_warmup_steps=3
  model.use_te_rng_tracker=true      # graph-safe RNG, required with any CUDA graph
  rng.te_rng_tracker=true
)

# Shapes must stay static: fixed seq_length and micro-batch size, no variable-length batches.

torchrun --nproc-per-node 8 scripts/training/run_recipe.py "${COMMON[@]}" \
  2>&1 | tee eager.log
torchrun --nproc-per-node 8 scripts/training/run_recipe.py "${COMMON[@]}" "${GRAPHS[@]}" \
  2>&1 | tee graphs.log

grep -E "graphable layers|Start CUDA Graphs capture|Time spent in CUDA Graphs capture" graphs.log \
  || { echo "no capture lines: graphs did not engage"; exit 1; }

# Compare mean step time. With TE graphs the capture is done in iteration 1 (TE's
# make_graphed_callables runs its own warmup passes inside the capture call), so
# iteration 1 is the only outlier: drop it and average iterations 2..$ITERS.
avg() {
  grep -oE "iteration +[0-9]+/ *[0-9]+ .*elapsed time per iteration \(ms\): [0-9.]+" "$1" \
    | awk '{ match($0,/iteration +[0-9]+/); it=substr($0,RSTART,RLENGTH); gsub(/[^0-9]/,"",it) }
           { match($0,/\(ms\): [0-9.]+/); ms=substr($0,RSTART+6,RLENGTH-6) }
           it>=2 { s+=ms; n++ } END { printf "%.1f ms over %d iters\n", s/n, n }'
}
echo "eager : $(avg eager.log)"
echo "graphs: $(avg graphs.log)"
# Also eyeball the loss columns: graphed loss should track eager to bf16 noise.
