#!/usr/bin/env bash
# check-graph-config.sh: validate the Bridge CUDA-graph settings before launch (megatron-core 0.19),
# fix what the validator reports, and loop until it is clean.
#
# Input as given:
#   cuda_graph_impl=transformer_engine, cuda_graph_scope=[moe, moe_router], use_te_rng_tracker=False
#
# What `skill-tools validate` reports for it (0.19 era):
#   1. moe + moe_router together: MCore asserts
#      "cuda_graph_modules must not contain both moe and moe_router."
#   2. TE RNG tracker required with any CUDA graph: use_te_rng_tracker and rng.te_rng_tracker -> true
#   3. cuda_graph_scope is deprecated on 0.18+: write cuda_graph_modules, set cuda_graph_scope to null
set -euo pipefail

CFG=${1:-graphs.yaml}
MCORE=${MCORE:-0.19.2}

cat > "$CFG" <<'YAML'
model:
  cuda_graph_impl: transformer_engine
  cuda_graph_scope: [moe, moe_router]
  use_te_rng_tracker: false
YAML

echo "== validate (as given)"
skill-tools validate "$CFG" --mcore-version "$MCORE" --json | tee validate.before.json || true
python - <<'PY'
import json
d = json.load(open("validate.before.json"))
for f in d.get("findings", []):
    print(f"- [{f.get('severity')}] {f.get('rule')}: {f.get('message')}  fix={f.get('fix')}")
PY

# Fixed config for a dropless MoE. Keep attention graphed, and graph the MoE preprocess step:
# moe_preprocess covers the router's top-k and the token-count preprocessing, so listing
# moe_router on top of it would only duplicate the router capture.
# (Drop-and-pad MoE could use [moe] alone instead.)
cat > "$CFG" <<'YAML'
model:
  cuda_graph_impl: transformer_engine
  cuda_graph_scope: null
  cuda_graph_modules: [attn, moe_preprocess]
  cuda_graph_warmup_steps: 3
  use_te_rng_tracker: true
rng:
  te_rng_tracker: true
YAML

echo "== validate (fixed)"
for attempt in 1 2 3; do
  if skill-tools validate "$CFG" --mcore-version "$MCORE" --json > validate.after.json; then
    echo "clean after attempt $attempt: launch with $CFG"
    exit 0
  fi
  echo "findings remain (attempt $attempt):"
  cat validate.after.json
  # let the tool write the era-correct keys and companions, then re-check
  skill-tools apply "$CFG" --impl transformer_engine --json > /dev/null || true
done
echo "still not clean: read validate.after.json (rule, message, fix) before launching" >&2
exit 1
