#!/usr/bin/env bash
# Do CUDA graphs speed up my small GPT training config on one H200? Measured properly:
#   - eager and each graph variant built from the SAME config (same model, batch, seq, seed)
#   - warmup and capture iterations excluded (the capture step is many times slower than a
#     steady step and would poison any average)
#   - repeated timed iterations, median step time with a bootstrap 95% CI, speedup CI vs eager
#   - loss delta vs eager and peak memory per variant
# Decision rule: a speedup whose 95% CI lies entirely above 1.0 is a real win; a CI that
# spans 1.0 means "no measurable speedup", whatever the point estimate says.
set -euo pipefail

CFG=${1:?usage: $0 path/to/my_gpt_config.yaml}
OUT=${OUT:-cg-bench}
mkdir -p "$OUT"

# 1) Is this kind of model launch-bound at all? Profiles eager and predicts the payoff.
#    (Use --size tiny|small|medium|large to match your model; small here.)
skill-tools precheck --workload dense --size small --json > "$OUT/precheck.json"
echo "precheck:"; jq '.' "$OUT/precheck.json" | head -40

# 2) The A/B itself: eager vs each impl/scope on your config.
skill-tools bench --json --config "$CFG" > "$OUT/bench.json"

# 3) Summarise. Hard gate only on what must be true for a number to mean anything:
#    every graph variant captured AND replayed.
jq -r '.variants[] | [(.name // .variant), .captured, .replayed, .step_ms,
        .speedup_vs_eager, .loss_max_abs_delta, (.error_class // "")] | map(tostring) | @tsv' \
   "$OUT/bench.json" | column -t -s $'\t'

if jq -e '[.variants[] | select((.name // .variant) != "eager")
           | select(.captured != true or .replayed != true)] | length > 0' "$OUT/bench.json" >/dev/null; then
  echo "WARNING: a graph variant did not capture/replay; read its error_class before comparing times." >&2
fi

# How to read it:
#  - speedup_vs_eager: look at the 95% CI, not the point value. Lower bound > 1.0 -> graphs pay.
#  - loss_max_abs_delta should be at bf16-noise level (~1e-3 or below) for full_iteration / TE scopes.
#    (MCore `local` per-layer graphs shift dropout masks; optimizer graph switches to capturable Adam.)
#  - kernel ms/step vs step ms in the bench report: if eager is already ~100% GPU-busy, expect ~1.0x.
#  - If you also have real training logs: skill-tools logs eager.log graph.log --json compares
#    steady-state iterations only (warmup + capture excluded) and gives speedup_ci95 + loss.
#
# Keep cuda_graph_warmup_steps at >= 1 (default 3) in the graphed config: capturing on the very
# first step records one-time initialisation into the graph.
