#!/usr/bin/env bash
# .git/hooks/pre-push: refuse to push a Bridge config whose CUDA-graph keys would fail at launch.
#
# Checked your config with the skill's validator first (era pinned to megatron-core 0.19):
#
#   $ skill-tools validate configs/train.yaml --mcore-version 0.19.2 --json
#   exit 1, findings:
#     error  moe + moe_router in one scope -> MCore 0.19: "cuda_graph_modules must not
#            contain both moe and moe_router." (`moe` = whole MoE block, drop-and-pad only)
#     error  use_te_rng_tracker=False with a graph impl -> Bridge asserts "Transformer
#            engine's RNG tracker is required for cudagraphs"; set model.use_te_rng_tracker
#            and rng.te_rng_tracker
#     warn   cuda_graph_scope is deprecated on 0.18+ ("use cuda_graph_modules instead")
#
# Fixed block (paste into configs/train.yaml), dropless MoE:
#
#   model:
#     cuda_graph_impl: transformer_engine
#     cuda_graph_modules: [moe_router, moe_preprocess]   # 0.19 key
#     cuda_graph_scope: [moe_router, moe_preprocess]     # same list mirrored in the old key so
#                                                        # recipe code that still reads it agrees
#     use_te_rng_tracker: true
#   rng:
#     te_rng_tracker: true
#
# (drop-and-pad MoE instead: [moe] alone, never with moe_router)
#
# With that block the validator exits 0; this hook keeps it that way.

set -euo pipefail

MCORE_VERSION=${MCORE_VERSION:-0.19.2}
status=0

while read -r cfg; do
  [[ -f "$cfg" ]] || continue
  grep -qE 'cuda_graph_(impl|scope|modules)' "$cfg" || continue
  echo "pre-push: validating $cfg (megatron-core $MCORE_VERSION)"
  if ! out=$(skill-tools validate "$cfg" --mcore-version "$MCORE_VERSION" --json); then
    echo "$out" | python -c '
import json, sys
doc = json.load(sys.stdin)
for f in doc.get("findings", []):
    print(f"  {f[\"severity\"]:7s} {f[\"rule\"]}: {f[\"message\"]}")
    for k, v in (f.get("fix") or {}).items():
        print(f"          fix: {k} = {v}")
'
    status=1
  fi
done < <(git diff --name-only '@{u}'..HEAD -- 'configs/*.yaml' 'configs/*.yml' 2>/dev/null || git ls-files 'configs/*.yaml')

if (( status )); then
  echo "pre-push: CUDA-graph config findings above; fix them (skill-tools apply can write era-correct keys) and push again." >&2
fi
exit $status
