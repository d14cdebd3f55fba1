#!/usr/bin/env bash
# CUDA graphs bring-up for Llama 3.1 8B on 8xH100 (Megatron Bridge, megatron-core 0.19)
# TP=1 PP=1 seq 8192 MBS 1
#
# Plan:
#   1. eager baseline (+ nsys on a few steady steps to confirm there are host/launch gaps)
#   2. TE-scoped graphs on attention only
#   3. compare replay steps vs the same steps of the eager run
#   4. if it pays off, try ["attn", "mlp"]
#
# Shapes must stay static for the whole run: keep seq_length=8192 and MBS=1, no unpadded packing.
set -euo pipefail

RECIPE_SCRIPT=${RECIPE_SCRIPT:-pretrain_llama31_8b.py}   # your script that builds the ConfigContainer
STEPS=${STEPS:-40}

# --- graph overrides, applied on top of the recipe ---------------------------
# (your script imports this and calls apply_cuda_graphs(cfg, modules) unless --cuda-graphs none)
cat > cg_overrides.py <<'PY'
def apply_cuda_graphs(cfg, modules=("attn",)):
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = None              # recipe sets "full"; 0.18+ asserts if both are set
    cfg.model.cuda_graph_modules = list(modules)   # 0.18+ key (0.16/0.17: cuda_graph_scope)
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True            # graph-safe RNG
    cfg.rng.te_rng_tracker = True
    return cfg
PY

# --- 1. eager baseline ----------------------------------------------------------
torchrun --nproc-per-node 8 "$RECIPE_SCRIPT" --cuda-graphs none --train-iters "$STEPS" 2>&1 | tee eager.log

# optional: profile steady eager steps, look for GPU idle gaps between kernel launches
# nsys profile -t cuda,nvtx -o eager_prof torchrun --nproc-per-node 8 "$RECIPE_SCRIPT" --cuda-graphs none --train-iters 15

# --- 2. graphs on attn -----------------------------------------------------------
torchrun --nproc-per-node 8 "$RECIPE_SCRIPT" --cuda-graphs attn --train-iters "$STEPS" 2>&1 | tee graph_attn.log
grep -E "Start CUDA Graphs capture|Time spent in CUDA Graphs capture|graphable layers" graph_attn.log

# --- 3. compare -----------------------------------------------------------------
# cuda_graph_warmup_steps=3 -> iterations 1-3 run eagerly, graphs are captured at the end of
# iteration 3, so everything from iteration 4 on is replay.
ITER_FROM=4
ITER_TO=12

avg_ms () {
  awk -v a="$ITER_FROM" -v b="$ITER_TO" '
    match($0, /iteration +([0-9]+)\//, it) && match($0, /elapsed time per iteration \(ms\): ([0-9.]+)/, t) {
      if (it[1] >= a && it[1] <= b) { s += t[1]; n++ }
    }
    END { if (n) printf "%.1f\n", s / n; else print "NA" }' "$1"
}

E=$(avg_ms eager.log)
G=$(avg_ms graph_attn.log)
echo "eager  : ${E} ms/iter (iters ${ITER_FROM}-${ITER_TO})"
echo "graphs : ${G} ms/iter (iters ${ITER_FROM}-${ITER_TO})"
python - <<PY
e, g = float("$E"), float("$G")
print(f"speedup: {e / g:.3f}x")
PY

# also eyeball loss at the same iterations; it should match eager to bf16 noise
# --- 4. if attn pays off, rerun with --cuda-graphs attn,mlp and compare the same window
