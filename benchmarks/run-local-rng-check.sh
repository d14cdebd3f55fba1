#!/usr/bin/env bash
# Is the loss drift of MCore `local` per-layer graphs (vs eager) the dropout RNG? Megatron-LM's own
# loop (engine megatron-lm flags, tiny GPT, 20 measured steps as in
# results/2026-12-03-training-megatron-lm-h200-dense-tiny-layer.json), three runs in parallel
# (losses do not depend on timing):
#   eager-nodrop  --attention-dropout 0 --hidden-dropout 0
#   local-nodrop  the same with --cuda-graph-impl local --te-rng-tracker
#   local-warm0   default dropout, --cuda-graph-impl local --te-rng-tracker --cuda-graph-warmup-steps 0
# and compares lm loss per iteration: eager-nodrop vs local-nodrop, and local-warm0 vs the committed
# default-dropout eager run of that results file.
#   bash benchmarks/run-local-rng-check.sh OUT_DIR
set -uo pipefail
out=${1:?output folder}; mkdir -p "$out"
base=$(python3 -m skill_tools bench --dry-run --json --variants eager --steps 20 --trials 1 |
       python3 -c 'import json,shlex,sys; print(shlex.join(json.load(sys.stdin)["variants"][0]["megatron_lm_flags"]))')
run() {  # NAME FLAGS...
  local name=$1; shift
  CUDA_DEVICE_MAX_CONNECTIONS=1 PYTHONUNBUFFERED=1 python3 -m torch.distributed.run --standalone --nproc-per-node=1 \
    -m skill_tools.harness.engines.megatron_lm --sidecar "$out/$name.sidecar.json" -- $base "$@" > "$out/$name.log" 2>&1
  echo "$name exit $?"
}
run eager-nodrop --attention-dropout 0 --hidden-dropout 0 &
run local-nodrop --attention-dropout 0 --hidden-dropout 0 --cuda-graph-impl local --te-rng-tracker &
run local-warm0 --cuda-graph-impl local --te-rng-tracker --cuda-graph-warmup-steps 0 &
wait
python3 - "$out" <<'PY'
import sys, json
from pathlib import Path
from skill_tools.logs.parse import parse_path
out = Path(sys.argv[1])
def losses(p):
    its = sorted({i.iteration: i for i in parse_path(p).iterations}.values(), key=lambda i: i.iteration)
    return [i.losses.get("lm loss") for i in its]
ref = Path("benchmarks/results/2026-12-03-training-megatron-lm-h200-dense-tiny-layer/logs/eager-t0.log.gz")
pairs = {"eager-nodrop vs local-nodrop": (out / "eager-nodrop.log", out / "local-nodrop.log"),
         "committed eager vs local-warm0": (ref, out / "local-warm0.log")}
report = {}
for name, (a, b) in pairs.items():
    la, lb = losses(a), losses(b)
    n = min(len(la), len(lb))
    d = [abs(x - y) for x, y in zip(la[:n], lb[:n]) if x is not None and y is not None]
    report[name] = {"iterations": n, "max_abs_delta": max(d) if d else None,
                    "first_differing_iteration": next((i + 1 for i, (x, y) in enumerate(zip(la, lb)) if x != y), None)}
print(json.dumps(report, indent=1))
(out / "summary.json").write_text(json.dumps(report, indent=1))
PY
