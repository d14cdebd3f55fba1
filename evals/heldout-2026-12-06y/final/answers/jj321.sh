#!/usr/bin/env bash
# Eager vs CUDA-graph A/B on one H200 for a small GPT config, with real statistics.
# Usage: ./cg_ab.sh path/to/small_gpt.yaml
set -euo pipefail
CFG=${1:?config file}
OUT=cg_ab_$(date +%Y%m%d_%H%M%S); mkdir -p "$OUT"

nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
python -c "import megatron.core as m, torch; print('mcore', m.__version__, 'torch', torch.__version__)" | tee "$OUT/versions.txt"

# 1) Is this config launch-bound at all? (eager profile / prediction; graphs only remove CPU launch cost)
skill-tools precheck --workload dense --size small --json > "$OUT/precheck.json"

# 2) The A/B itself. bench builds eager and each graph variant from the SAME config, excludes the
#    warmup and capture iterations, times repeated steady-state (replay) iterations, and reports
#    median step_ms, speedup_vs_eager with a bootstrap 95% CI, loss_max_abs_delta and memory.
skill-tools bench --config "$CFG" --json > "$OUT/bench.json"

# 3) Read it: decide on the CI, not on the point estimate.
python - "$OUT/bench.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for v in r.get("variants", []):
    ci = v.get("speedup_vs_eager_ci95") or v.get("speedup_ci95")
    print(f'{v.get("name","?"):28s} captured={v.get("captured")} replayed={v.get("replayed")} '
          f'step_ms={v.get("step_ms")} speedup={v.get("speedup_vs_eager")} ci95={ci} '
          f'loss_delta={v.get("loss_max_abs_delta")} err={v.get("error_class")}')
PY

cat <<'TXT'
How to judge:
 - speedup CI entirely above 1.0  -> graphs help for this config (check loss_max_abs_delta ~ bf16 noise).
 - CI spans 1.0                   -> no measurable speedup; leave cuda_graph_impl="none".
 - captured but not replayed, or an error_class -> a setup problem, fix it before reading timings.
 - precheck says not launch-bound -> expect neutral results; large GEMMs don't benefit.
Keep warmup >= 1 (default 3); never time the capture step.
TXT
