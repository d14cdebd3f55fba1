#!/usr/bin/env bash
# bench_graphs_vs_eager.sh — one H200: does CUDA graphing pay off for my small GPT config?
#
# What this does (skill-tools bench):
#   * builds eager and graph variants from *your* config (same layer shape, same
#     micro-batch, same seq length, same precision; only the graph settings differ)
#   * per variant: eager warmup steps, then capture (graph variants), then the timed
#     steps — warmup and the capture step are NOT in the timing
#   * interleaved trials, so drift (clocks, thermals) hits every variant equally
#   * reports median step time per variant, speedup vs eager with a bootstrap
#     confidence interval, and peak memory
# Decide from the speedup CI, never from one iteration or one trial.
set -euo pipefail

CONFIG=${CONFIG:-train_small_gpt.sh}   # your Megatron-LM launch script / Bridge YAML / Hydra overrides
OUT=${OUT:-bench-out}

# 0) No-GPU sanity check: what will run, which graph settings each variant gets
#    (full_iteration carries --te-rng-tracker and --no-check-for-nan-in-loss-and-grad;
#     TE variants use --cuda-graph-modules on 0.18+), and does it fit in memory.
skill-tools bench --config "$CONFIG" --gpu-type h200 --dry-run

# 1) The A/B itself. Defaults for a dense config: eager, full_iteration, te:attn+mlp.
#    More steps/trials than the defaults (30 steps x 2 trials) tighten the CI.
skill-tools bench --config "$CONFIG" --gpu-type h200 \
  --steps 50 --trials 3 \
  --out "$OUT" --name small-gpt-h200

# Optional: pin the variants explicitly, e.g. add the optimizer graph arm
# skill-tools bench --config "$CONFIG" --gpu-type h200 --steps 50 --trials 3 \
#   --variants eager,full_iteration,full_iteration+optimizer,te:attn+mlp --out "$OUT"

# 2) Is the eager run launch-bound at all? Predict from the eager profile recorded
#    in the bench results and check the prediction against the measured A/B (no GPU).
skill-tools precheck --results "$OUT/small-gpt-h200.json"
#    (or profile directly: skill-tools precheck --workload dense --size small)

# How to read it
#   * speedup CI entirely above 1.0  -> graphs help; keep the fastest variant that validated
#   * CI straddles 1.0               -> neutral; not worth the extra memory/constraints
#   * CI below 1.0                   -> graphs hurt here; stay eager
#   * check the memory column too: graph pools stay resident
# A small GPT on an H200 is usually launch-bound (small kernels, fast GPU), so a
# clear full_iteration win is plausible — but let the interval decide.
