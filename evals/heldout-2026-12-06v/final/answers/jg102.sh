#!/usr/bin/env bash
# CUDA-graph bring-up for Llama 3.1 8B, Megatron Bridge + megatron-core 0.19, 8xH100
# TP=1 PP=1, seq 8192, MBS 1.
#
# Plan:
#   1) eager baseline (profile it: are there launch gaps at all?)
#   2) Transformer Engine per-layer graphs, attention only
#   3) compare step times; widen to attn+mlp only if (2) wins
#
# Shapes must stay static for graphs: fixed seq_length=8192 and micro_batch_size=1,
# no variable-length / unpadded packed batches.
set -euo pipefail

RECIPE_SCRIPT=${RECIPE_SCRIPT:-examples/recipes/llama/pretrain_llama31_8b.py}
STEPS=30
COMMON=(
  train.train_iters=${STEPS}
  train.micro_batch_size=1
  dataset.seq_length=8192
  model.seq_length=8192
  rng.seed=1234
)

# --- 1) eager baseline ----------------------------------------------------------
torchrun --nproc-per-node 8 "${RECIPE_SCRIPT}" \
  "${COMMON[@]}" \
  model.cuda_graph_impl=none \
  2>&1 | tee eager.log

# Optional: nsys on the eager run to confirm the GPU actually idles between kernels
# nsys profile -t cuda,nvtx -o eager_prof torchrun ... (same args)

# --- 2) TE scoped graphs, attention only (0.18+ keys) ---------------------------
torchrun --nproc-per-node 8 "${RECIPE_SCRIPT}" \
  "${COMMON[@]}" \
  model.cuda_graph_impl=transformer_engine \
  model.cuda_graph_scope=null \
  'model.cuda_graph_modules=[attn]' \
  model.cuda_graph_warmup_steps=3 \
  model.use_te_rng_tracker=true \
  rng.te_rng_tracker=true \
  2>&1 | tee graph_attn.log

grep -E "graphable layers|CUDA Graphs capture" graph_attn.log || {
  echo "no capture lines found: graphs did not engage" >&2; exit 1; }

# --- 3) compare ------------------------------------------------------------------
# The graphs are captured on the first logged iteration, so drop iteration 1 and
# average everything from iteration 2 onward for both runs.
avg_step_ms () {
  awk -F'elapsed time per iteration \\(ms\\): ' '
    /iteration +[0-9]+\// {
      match($0, /iteration +[0-9]+/); it = substr($0, RSTART+10, RLENGTH-10) + 0
      if (it >= 2 && NF > 1) { split($2, a, " "); s += a[1]; n++ }
    }
    END { if (n) printf "%.1f\n", s/n; else print "NA" }' "$1"
}

E=$(avg_step_ms eager.log)
G=$(avg_step_ms graph_attn.log)
echo "eager avg step: ${E} ms"
echo "graph avg step: ${G} ms"
python3 - "$E" "$G" <<'PY'
import sys
e, g = map(float, sys.argv[1:])
print(f"speedup: {e/g:.3f}x")
PY

# If attn wins, repeat step 2 with 'model.cuda_graph_modules=[attn,mlp]' and the same
# comparison. Check loss curves match eager (same seed) before keeping graphs on.
