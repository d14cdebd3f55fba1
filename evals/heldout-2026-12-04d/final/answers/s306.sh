#!/bin/bash
#BSUB -J cg-ab-small-gpt
#BSUB -q gpu
#BSUB -n 1
#BSUB -gpu "num=1:mode=exclusive_process"
#BSUB -W 01:00
#BSUB -o cg-ab.%J.out
#BSUB -e cg-ab.%J.err
#
# Eager vs CUDA graphs on ONE H200 for the small GPT config, with statistics.
#
# What the measurement does (skill-tools bench, Megatron-LM's own pretrain() per variant,
# each in its own torchrun subprocess):
#   - the same config is run eager and with each graph variant
#   - the warmup steps and the capture step are excluded from timing (the capture step
#     includes warmup + capture + first replay and would distort the mean)
#   - repeated timed steps over interleaved trials -> median step time per variant and a
#     bootstrap 95% confidence interval for speedup_vs_eager; peak memory per variant;
#     loss_max_abs_delta vs eager as a parity check
# Read the verdict from the CI: a CI entirely above 1.0 is a real speedup, one that spans 1.0
# is "no measurable difference". Never judge from a single iteration.
set -euo pipefail

CFG=${CFG:-configs/small_gpt.sh}      # your Megatron-LM launch script / Bridge YAML / recipe
OUT=${OUT:-cg-ab-$LSB_JOBID}

nvidia-smi --query-gpu=name,memory.total --format=csv

# 0) Is this config launch-bound at all? Profiles eager steps (host gaps on the GPU timeline)
#    and predicts whether graphs can pay off, then checks the prediction with a short A/B.
skill-tools precheck --config "$CFG" --nproc 1 --gpu-type h200 --json > "$OUT.precheck.json" || true

# 1) Dry run: shows the plan (your layer shape fitted to one H200, every change printed).
skill-tools bench --config "$CFG" --nproc 1 --gpu-type h200 --dry-run

# 2) The measurement: eager, your graph settings and what `recommend` proposes,
#    30 measured steps per trial, 3 interleaved trials.
skill-tools bench --config "$CFG" --nproc 1 --gpu-type h200 \
    --steps 30 --warmup 3 --trials 3 \
    --out "$OUT" --json > "$OUT.bench.json"

# 3) Short summary from the JSON: per variant captured/replayed, median step ms,
#    speedup CI, loss delta.
python - "$OUT.bench.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for v in doc.get("variants", []):
    print(v.get("name"), "captured", v.get("captured"), "replayed", v.get("replayed"),
          "step_ms", v.get("step_ms"), "speedup", v.get("speedup_vs_eager"),
          "loss_delta", v.get("loss_max_abs_delta"), "error", v.get("error_class"))
PY
# If precheck says the step is not launch-bound and bench's speedup CI spans 1.0, leave
# cuda_graph_impl at "none" for this config.
