#!/bin/bash
#PBS -N gpt-small-cudagraph-ab
#PBS -q gpu
#PBS -l select=1:ncpus=16:ngpus=1:mem=120gb
#PBS -l walltime=01:00:00
#PBS -j oe
#
# Eager vs CUDA-graph A/B for the small GPT config on one H200, with statistics.
#
# What skill-tools bench does for you:
#   - builds eager and each graph variant from the SAME config (your layer shape, fitted to 1 GPU;
#     every change it makes is printed), each in its own torchrun subprocess through
#     Megatron-LM's own pretrain(), so a failed capture/OOM/hang is a classified result, not a crash;
#   - drops the warmup steps and the capture step (capture_step_ms is reported separately; that
#     step is many times slower than steady state and must not be averaged in);
#   - times repeated steady-state steps over interleaved trials, reports the median step time with
#     a bootstrap 95% confidence interval, speedup_vs_eager with its CI, loss_max_abs_delta vs
#     eager, and peak memory.
# Decide on the speedup CI: lower bound > 1.0 -> graphs help; CI spanning 1.0 -> no real gain,
# leave cuda_graph_impl=none. One fast iteration proves nothing.

set -euo pipefail
cd "$PBS_O_WORKDIR"
source .venv/bin/activate          # pip install '.[gpu,plot]'  (torch, megatron-core, TE)

CFG=configs/gpt_small.sh           # your Megatron-LM launch / Bridge YAML
OUT=ab-$(date +%Y%m%d-%H%M)

# 0) plan only, no GPU work: which variants, which flags, what was changed to fit 1 GPU
skill-tools bench --config "$CFG" --dry-run

# 1) is the eager step launch-bound at all? host-gap fraction + prediction
skill-tools precheck --config "$CFG" --json > "$OUT-precheck.json" || true

# 2) the A/B: eager, your graph settings, and what recommend proposes
skill-tools bench --config "$CFG" --steps 50 --trials 3 --warmup 3 --out "$OUT" --json > "$OUT.json"

# 3) short human summary (variants[]: captured, replayed, step_ms, speedup_vs_eager CI, loss delta)
python - "$OUT.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for v in doc.get("variants", []):
    print(v.get("name"), "captured=", v.get("captured"), "replayed=", v.get("replayed"),
          "step_ms=", v.get("step_ms"), "speedup=", v.get("speedup_vs_eager"),
          "loss_max_abs_delta=", v.get("loss_max_abs_delta"), "error=", v.get("error_class"))
PY
