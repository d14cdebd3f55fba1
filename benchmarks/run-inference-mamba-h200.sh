#!/usr/bin/env bash
# Mamba hybrid decode graphs and the batch-invariant parity pass, on one GPU, within a time budget.
# Run from the project root (python -m puts the working directory first on sys.path).
#
#   PHASE bi-local : eager vs block under batch_invariant_mode at natural shapes, batch 1,4,16,64, on the
#                    dense (tiny-gpt) and MoE (tiny-moe-shared) workloads. Local layer spec: needs
#                    megatron-core only (Transformer Engine may be absent).
#   PHASE mamba    : (1) check_mamba_padded_rows.py: padded decode rows move no request's recurrent
#                    state (kernels, then the engine with block graphs); (2) tiny-mamba-hybrid
#                    eager / eager at the graph buckets / layer / block, batch 1-64, 16 greedy tokens,
#                    2 trials; (3) its batch-invariant pass; (4) the same pass on tiny-hybrid-moe while
#                    time is left. Needs mamba-ssm, causal-conv1d and Transformer Engine importable
#                    (benchmarks/build-mamba-kernels.sh builds the first two).
# A step that fails does not stop the next; the budget only stops new steps from starting.
# Usage: bash benchmarks/run-inference-mamba-h200.sh OUT_DIR PHASE
set -u
OUT=${1:?usage: $0 OUT_DIR bi-local|mamba}
PHASE=${2:?usage: $0 OUT_DIR bi-local|mamba}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
BUDGET_S=${BUDGET_S:-420}
VARIANT_TIMEOUT_S=${VARIANT_TIMEOUT_S:-150}
START=$SECONDS
left() { echo $(( BUDGET_S - (SECONDS - START) )); }
say() { echo "[mamba-bench $(date -u +%T)] $*"; }

packages() { "$PY" benchmarks/gpu_packages.py; }

bi_pass() {  # $1 = workload
  local w=$1
  if [ "$(left)" -lt 60 ]; then say "budget spent: no batch-invariant pass for $w" | tee -a "$OUT/skipped.txt"; return; fi
  say "$w: batch-invariant eager vs block ($(left) s left)"
  "$PY" -m skill_tools bench --mode inference --workload "$w" --inference-scope none --batch-invariant-scopes block \
    --batch-invariant-only --name "$(date -u +%F)-inference-$w-batch-invariant-h200" \
    --batch-sizes 1,4,16,64 --decode-tokens 16 --trials 1 --timeout "$VARIANT_TIMEOUT_S" --out "$OUT" \
    > "$OUT/$w-batch-invariant.stdout" 2> "$OUT/$w-batch-invariant.stderr"
  say "$w batch-invariant: exit $? ($(tail -n 1 "$OUT/$w-batch-invariant.stderr"))"
}

packages 2>&1 | tee "$OUT/packages-$PHASE.txt"
case "$PHASE" in
  bi-local)
    for w in ${LOCAL_BI:-tiny-gpt tiny-moe-shared}; do bi_pass "$w"; done ;;
  mamba)
    say "padded-row check ($(left) s left)"
    "$PY" benchmarks/check_mamba_padded_rows.py --engine --out "$OUT/mamba-padded-rows.json" \
      > "$OUT/mamba-padded-rows.stdout" 2> "$OUT/mamba-padded-rows.stderr"
    say "padded-row check: exit $? $(tail -n 1 "$OUT/mamba-padded-rows.stdout")"
    say "tiny-mamba-hybrid: eager/layer/block ($(left) s left)"
    "$PY" -m skill_tools bench --mode inference --workload tiny-mamba-hybrid --inference-scope none,layer,block \
      --batch-sizes 1,2,4,8,16,32,64 --decode-tokens 16 --trials 2 --timeout "$VARIANT_TIMEOUT_S" --out "$OUT" \
      > "$OUT/tiny-mamba-hybrid.stdout" 2> "$OUT/tiny-mamba-hybrid.stderr"
    say "tiny-mamba-hybrid: exit $? ($(tail -n 1 "$OUT/tiny-mamba-hybrid.stderr"))"
    for w in ${MAMBA_BI:-tiny-mamba-hybrid tiny-hybrid-moe}; do bi_pass "$w"; done ;;
  *) echo "unknown phase $PHASE (bi-local or mamba)"; exit 2 ;;
esac
say "$PHASE done in $((SECONDS - START)) s; summary:"
"$PY" -m skill_tools bench --summary "$OUT"
