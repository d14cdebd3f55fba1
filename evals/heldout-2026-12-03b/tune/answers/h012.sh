#!/usr/bin/env bash
# Qwen3-30B-A3B, dropless MoE (alltoall, EP=8), Megatron Bridge on megatron-core 0.19.
# Whole-layer / "moe" capture is NOT possible here: dropless routing gives dynamic per-expert
# token counts and the dispatcher does device-to-host syncs. Graph only the router + preprocess.
set -euo pipefail
export CUDA_DEVICE_MAX_CONNECTIONS=1

GRAPH_OVERRIDES=(
  model.cuda_graph_impl=transformer_engine
  "model.cuda_graph_modules=[moe_router,moe_preprocess]"
  model.cuda_graph_warmup_steps=3
  model.use_te_rng_tracker=true
  rng.te_rng_tracker=true
)
# Next A/B after this is stable: "model.cuda_graph_modules=[attn,moe_router,moe_preprocess]"

torchrun --nproc-per-node 8 scripts/training/run_recipe.py \
  --recipe qwen3_30b_a3b_pretrain_config \
  model.expert_model_parallel_size=8 \
  "${GRAPH_OVERRIDES[@]}"
