#!/usr/bin/env bash
# TE-scoped CUDA graphs, attention + MLP, for megatron-core 0.16.1 + Megatron Bridge.
# NOTE: on 0.16.x/0.17.x the coverage list is `cuda_graph_scope`.
#       `cuda_graph_modules` (and cuda_graph_impl=full_iteration) only appear in 0.18+,
#       so do not copy those from newer examples.
set -euo pipefail

torchrun --nproc-per-node 8 scripts/training/run_recipe.py \
  --recipe "${RECIPE:?set RECIPE to your dense GPT recipe function}" \
  model.cuda_graph_impl=transformer_engine \
  'model.cuda_graph_scope=[attn,mlp]' \
  model.cuda_graph_warmup_steps=3 \
  model.use_te_rng_tracker=true \
  rng.te_rng_tracker=true

# Equivalent in recipe Python:
#   cfg.model.cuda_graph_impl = "transformer_engine"
#   cfg.model.cuda_graph_scope = ["attn", "mlp"]
#   cfg.model.cuda_graph_warmup_steps = 3
#   cfg.model.use_te_rng_tracker = True
#   cfg.rng.te_rng_tracker = True
# Keep seq_length and micro_batch_size fixed; compare post-capture steps vs eager.
