#!/usr/bin/env bash
# Inference decode graphs beyond the dense GPT, in one GPU session of at most 8 minutes:
# for each workload of skill_tools/harness/inference/workloads.py (Mamba hybrid, hybrid attention+MoE
# with shared experts, MoE with shared experts + fp32 expert bias, fp32 residual stream):
#   pass 1: eager, eager padded to the graph buckets (same-shape parity control), layer and block
#           decode graphs, batch 1-64;
#   pass 2 (while time is left): eager and block under batch_invariant_mode (parity at natural shapes).
# A workload that cannot be built here (e.g. Mamba layers without mamba_ssm/causal_conv1d) writes a
# results file that says why; a failing workload does not stop the others.
# Usage: bash benchmarks/run-inference-hybrid-h200.sh OUT_DIR
set -u
OUT=${1:?usage: $0 OUT_DIR}
mkdir -p "$OUT"
PY=${PYTHON:-python}
BUDGET_S=${BUDGET_S:-450}       # stop starting new passes after this many seconds
VARIANT_TIMEOUT_S=${VARIANT_TIMEOUT_S:-100}
BATCHES=${BATCHES:-1,2,4,8,16,32,64}
COMMON=(--batch-sizes "$BATCHES" --decode-tokens 16 --trials 2 --timeout "$VARIANT_TIMEOUT_S" --out "$OUT")
WORKLOADS=(tiny-moe-shared tiny-hybrid-moe tiny-hybrid tiny-fp32-residual)
# Workloads the checks refuse from the source (inference_workloads.unavailable) but that are run once
# anyway, briefly, to observe the failure on the hardware: eager and block at two batch sizes.
RUN_REFUSED=${RUN_REFUSED:-tiny-fp32-residual}
START=$SECONDS
left() { echo $(( BUDGET_S - (SECONDS - START) )); }

# Which optional packages the device has (the worker decides from the same facts).
"$PY" - <<'PYEOF' 2>&1 | tee "$OUT/packages.txt"
import importlib.metadata as md, importlib.util as u
for mod, dist in (("mamba_ssm", "mamba-ssm"), ("causal_conv1d", "causal-conv1d"), ("fla", "flash-linear-attention"),
                  ("flash_attn", "flash-attn"), ("einops", "einops"), ("transformer_engine", "transformer-engine"),
                  ("megatron.core", "megatron-core"), ("torch", "torch"), ("triton", "triton")):
    try:
        found = u.find_spec(mod) is not None
    except ModuleNotFoundError:
        found = False
    try:
        ver = md.version(dist) if found else None
    except md.PackageNotFoundError:
        ver = "unknown"
    print(f"{dist}: {ver or 'not installed'}")
PYEOF

for w in "${WORKLOADS[@]}"; do
  if [ "$(left)" -lt 60 ]; then echo "[hybrid-bench] budget spent: skipping $w" | tee -a "$OUT/skipped.txt"; continue; fi
  if [[ " $RUN_REFUSED " == *" $w "* ]]; then
    echo "[hybrid-bench] $w: refused by the checks, run once to observe ($(left) s left)"
    "$PY" -m skill_tools bench --mode inference --workload "$w" --run-refused --inference-scope none,block \
      --no-same-shape-eager --batch-sizes 1,8 --decode-tokens 16 --trials 1 --timeout "$VARIANT_TIMEOUT_S" \
      --out "$OUT" > "$OUT/$w.stdout" 2> "$OUT/$w.stderr"
    echo "[hybrid-bench] $w: exit $? ($(tail -n 1 "$OUT/$w.stderr"))"
    continue
  fi
  echo "[hybrid-bench] $w: eager/layer/block ($(left) s left)"
  "$PY" -m skill_tools bench --mode inference --workload "$w" --inference-scope none,layer,block "${COMMON[@]}" \
    > "$OUT/$w.stdout" 2> "$OUT/$w.stderr"
  echo "[hybrid-bench] $w: exit $? ($(tail -n 1 "$OUT/$w.stderr"))"
done

for w in "${WORKLOADS[@]}"; do
  if [[ " $RUN_REFUSED " == *" $w "* ]]; then continue; fi
  if grep -q '"status": "unavailable"' "$OUT"/*-inference-"$w"-unmeasured.json 2>/dev/null; then continue; fi
  if [ "$(left)" -lt 70 ]; then echo "[hybrid-bench] budget spent: no batch-invariant pass for $w" | tee -a "$OUT/skipped.txt"; continue; fi
  echo "[hybrid-bench] $w: batch-invariant eager vs block ($(left) s left)"
  "$PY" -m skill_tools bench --mode inference --workload "$w" --inference-scope none --batch-invariant-scopes block \
    --batch-invariant-only --name "$(date -u +%F)-inference-$w-batch-invariant-h200" \
    --batch-sizes 1,4,16,64 --decode-tokens 16 --trials 1 --timeout "$VARIANT_TIMEOUT_S" --out "$OUT" \
    > "$OUT/$w-batch-invariant.stdout" 2> "$OUT/$w-batch-invariant.stderr"
  echo "[hybrid-bench] $w batch-invariant: exit $?"
done

echo "[hybrid-bench] done in $((SECONDS - START)) s; summary:"
"$PY" -m skill_tools bench --summary "$OUT"
