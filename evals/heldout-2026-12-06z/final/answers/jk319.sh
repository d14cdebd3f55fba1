#!/usr/bin/env bash
# CUDA-graph recommendation for configs/qwen3_30b_a3b.yaml (dropless MoE, alltoall, EP=8)
set -euo pipefail
CFG=configs/qwen3_30b_a3b.yaml

# 1) Ask the helper. --json gives: recommended impl, modules, the overrides, and why.
skill-tools recommend --json "$CFG" | tee /tmp/recommend.json

# What to expect for this model (dropless alltoall MoE):
#   impl    : transformer_engine
#   modules : [moe_router, moe_preprocess]   (attn as a later, separate A/B)
#   plus    : model.use_te_rng_tracker=true, rng.te_rng_tracker=true (required for any graph impl)
# Not expected, and don't override it to these:
#   - "moe" module: needs drop-and-pad (capacity factor + pad_expert_input_to_capacity),
#     MCore asserts 'moe cuda graph is only supported with drop-padding MoE.'
#   - full_iteration: the alltoall dispatcher copies token counts to the host before the
#     EP all-to-all, which can't happen inside a whole-iteration capture.

# 2) Write the era-correct keys (0.18+: cuda_graph_modules, clears a recipe's cuda_graph_scope)
#    and the required companions into a copy of the config.
cp "$CFG" configs/qwen3_30b_a3b.graphs.yaml
skill-tools apply --json configs/qwen3_30b_a3b.graphs.yaml \
    --impl transformer_engine --scope moe_router,moe_preprocess

# 3) Validate; exit 0 means no findings.
skill-tools validate --json configs/qwen3_30b_a3b.graphs.yaml

# 4) Then A/B on the real job: eager vs graphs, compare post-capture iterations only
#    (skill-tools logs eager.log graph.log --json). On this model graphs can be neutral
#    when the step is all-to-all bound, so keep them only if the speedup CI is above 1.0.
