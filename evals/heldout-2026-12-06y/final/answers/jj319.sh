#!/usr/bin/env bash
# Recommend + apply CUDA-graph settings for configs/qwen3_30b_a3b.yaml
# (Qwen3-30B-A3B, dropless MoE, alltoall dispatcher, EP=8)
set -euo pipefail
CFG=configs/qwen3_30b_a3b.yaml

# 1) Ask the helper. --json so we can read the fields instead of scraping text.
skill-tools recommend "$CFG" --json | tee /tmp/cg_recommend.json

# What to expect for this model: impl=transformer_engine with modules [attn, moe].
#  - transformer_engine because Bridge only does per-layer graphs through TE
#    (local is full-iteration only there), and full-iteration doesn't suit a
#    dropless alltoall MoE (the dispatcher syncs token counts to the host).
#  - attn + moe: with 128 experts / top-8 most of the launch overhead is in the
#    MoE block (router, permute, grouped GEMM launches, unpermute), and `moe`
#    captures that whole block per layer. If the helper comes back with the
#    narrower moe_router/moe_preprocess pair, that's it being conservative;
#    attn + moe is the one that actually moves step time on A3B-style models.
#  - TE RNG tracker on (model.use_te_rng_tracker + rng.te_rng_tracker) - required
#    by Bridge for any graph.
python - <<'PY'
import json
r = json.load(open("/tmp/cg_recommend.json"))
print("impl   :", r.get("impl") or r.get("recommended", {}).get("impl"))
print("modules:", r.get("modules") or r.get("recommended", {}).get("modules"))
PY

# 2) Write era-correct overrides (cuda_graph_modules on mcore 0.18+, cuda_graph_scope on 0.16/0.17,
#    plus the RNG-tracker companions) into a copy of the config.
cp "$CFG" configs/qwen3_30b_a3b.cg.yaml
skill-tools apply configs/qwen3_30b_a3b.cg.yaml --impl transformer_engine --scope attn,moe --json

# 3) Validate the result before launching anything.
skill-tools validate configs/qwen3_30b_a3b.cg.yaml --json

# 4) Then A/B on steady-state steps (warmup + capture excluded):
#    skill-tools bench --config configs/qwen3_30b_a3b.cg.yaml --json
