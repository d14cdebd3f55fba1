#!/usr/bin/env bash
# cg_ab.sh — does CUDA graphing pay off for my small GPT config on one H200?
# Usage: ./cg_ab.sh my_gpt.yaml
#
# Uses the skill-tools harness instead of hand-timing: it runs eager and each graph variant on the
# same config (your layer shape, Megatron-LM's own pretrain()), discards the eager warmup steps and
# the capture step, times N replay steps per trial, interleaves trials so drift hits every variant
# equally, and reports per-variant median step time with bootstrap confidence intervals, the
# speedup vs eager with its CI, and peak memory.
set -euo pipefail

CFG=${1:?usage: $0 <config: Bridge YAML / recipe .py / Megatron-LM launch script>}
OUT=bench-out
NAME=mygpt-h200-ab

# 0) no-GPU sanity: what will run, and do all variants pass the validator for the installed mcore?
skill-tools bench --config "$CFG" --variants eager,full_iteration,te:attn+mlp --dry-run

# 1) the A/B on the GPU
#    eager            : baseline
#    full_iteration   : whole forward/backward in one graph (mcore 0.18+: cuda_graph_impl=full_iteration)
#    te:attn+mlp      : TE per-layer graphs on attention + dense MLP
#    --warmup 3       : eager steps before capture (excluded from timing, as is the capture step)
#    --steps 30       : timed replay steps per trial; --trials 3 interleaved trials per variant
skill-tools bench --config "$CFG" \
  --variants eager,full_iteration,te:attn+mlp \
  --warmup 3 --steps 30 --trials 3 \
  --out "$OUT" --name "$NAME"

# 2) is the eager step launch-bound at all? predict from the eager profile of the same results
#    and check the prediction against the A/B you just ran (no extra GPU time)
skill-tools precheck --results "$OUT/$NAME.json"

# 3) re-render the table/plot later if needed
# skill-tools bench --render "$OUT/$NAME.json"

cat <<'GUIDE'

How to read the result
----------------------
* Decide on the speedup CI, not on a single number: e.g. "1.18x [1.15, 1.21]" is a real win;
  "1.01x [0.98, 1.04]" means no measurable gain -> keep eager (less memory, fewer constraints).
* Medians are over replay steps only; the first (capture) iteration is excluded because it is a
  one-time cost, not steady state. Don't compare against iteration 1 of a training log.
* precheck tells you whether eager has host/launch gaps: a small GPT (few layers, short seq,
  small micro-batch) is usually launch-bound and benefits; a compute-bound shape won't.
* Check the memory column: graphs keep static buffers alive; make sure the real run still fits.
* If you then enable it in training: full_iteration needs rerun_state_machine.check_for_nan_in_loss=False
  (Bridge) / --no-check-for-nan-in-loss-and-grad (Megatron-LM) and the TE RNG tracker
  (use_te_rng_tracker=True + rng.te_rng_tracker=True / --te-rng-tracker); the harness already sets these.
GUIDE
