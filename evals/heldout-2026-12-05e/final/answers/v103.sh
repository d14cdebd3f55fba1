#!/usr/bin/env bash
# Patch your Megatron Bridge override YAML in place for TE-scoped CUDA graphs on
# attention + MLP. Target: megatron-core 0.16.1 (legacy API era).
#
# On 0.16.x/0.17.x the per-layer coverage key is `cuda_graph_scope` (a list of CudaGraphScope
# names). `cuda_graph_modules` only exists from 0.18 on; on 0.16.1 it is an unknown field and
# fails, so do not use it. Likewise cuda_graph_impl="full_iteration" is 0.18+ only.
# Requires mikefarah yq v4.
set -euo pipefail
CFG="${1:-conf/llama_overrides.yaml}"

yq -i '
  .model.cuda_graph_impl = "transformer_engine" |
  .model.cuda_graph_scope = ["attn", "mlp"] |
  .model.cuda_graph_warmup_steps = 3 |
  .model.use_te_rng_tracker = true |
  .rng.te_rng_tracker = true |
  del(.model.cuda_graph_modules)
' "$CFG"

echo "== CUDA-graph keys now in $CFG =="
yq '{"model": .model | pick(["cuda_graph_impl","cuda_graph_scope","cuda_graph_warmup_steps","use_te_rng_tracker"]), "rng": .rng | pick(["te_rng_tracker"])}' "$CFG"

# Same thing as Python on the ConfigContainer, if you build the config in code:
#   cfg.model.cuda_graph_impl = "transformer_engine"
#   cfg.model.cuda_graph_scope = ["attn", "mlp"]
#   cfg.model.cuda_graph_warmup_steps = 3
#   cfg.model.use_te_rng_tracker = True
#   cfg.rng.te_rng_tracker = True
#
# Or as Hydra overrides:
#   model.cuda_graph_impl=transformer_engine "model.cuda_graph_scope=[attn,mlp]" \
#   model.cuda_graph_warmup_steps=3 model.use_te_rng_tracker=true rng.te_rng_tracker=true
#
# Keep seq_length and micro-batch size fixed. After the run, look for
# "Time spent in CUDA Graphs capture" and compare steady-state steps (not the capture step)
# against an eager run.
