#!/usr/bin/env bash
# triage_decode_parity.sh: is "graph != eager at batch 4/8" a graph bug or padded-shape rounding?
#
# Background (megatron-core 0.19, dynamic inference engine):
#   * graphed decode step : replays the smallest captured bucket that fits the batch
#                           (CUDAGraphBatchDimensionBuilder.match_graph_config -> min(applicable))
#   * eager decode step   : pads to min(max_tokens, max_requests, round_up_tokens(n)),
#                           round_up_tokens = next multiple of TOKEN_ROUNDER=64 (x TP)
#   -> at batch 4/8 the two paths run bf16 GEMMs with different M. Different kernels and
#      reduction order flip a greedy argmax at a near-tie, and the sequences then diverge.
#   Decode graphs are broken only if the mismatch survives at EQUAL padded shapes,
#   shows up at the FIRST generated token, or two runs of the SAME variant differ.
set -euo pipefail

OUT=${OUT:-parity_runs}
BATCHES=${BATCHES:-1,4,8,16,32}
mkdir -p "$OUT"

banner() { printf '\n==== %s ====\n' "$*"; }

banner "1/3 plan (no GPU)"
skill-tools bench --mode inference --workload tiny-gpt \
  --batch-sizes "$BATCHES" --inference-scope none,block --dry-run
# expected: "would run none, none-graph-shapes, block ..."
#   none              = plain eager (natural padding, 64-row rounding)
#   none-graph-shapes = eager padded to the graph buckets  <- the parity control
#   block             = inference_cuda_graph_scope="block" (cuda_graph_impl="local")

banner "2/3 run, trial A"
skill-tools bench --mode inference --workload tiny-gpt \
  --batch-sizes "$BATCHES" --inference-scope none,block \
  --decode-tokens 64 --out "$OUT" --name trialA

banner "3/3 run, trial B (same variants again: must be bitwise repeatable)"
skill-tools bench --mode inference --workload tiny-gpt \
  --batch-sizes "$BATCHES" --inference-scope none,block \
  --decode-tokens 64 --out "$OUT" --name trialB

cat <<'VERDICT'

How to read the results
  block == none-graph-shapes at every batch            -> graphs are fine; block != none at 4/8
                                                         is bf16 rounding from different shapes
  block != none-graph-shapes                            -> REAL BUG (same shapes, different tokens)
  any variant differs already at generated token #1     -> REAL BUG
  trialA != trialB for the same variant and batch       -> REAL BUG (non-determinism / stale state)

For your own engine instead of the harness, compare logits, not tokens: at the first
divergent step, log the top-2 logits of both runs. A near-tie within bf16 noise is
the rounding effect, not a replay error.
VERDICT
