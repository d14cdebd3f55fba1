#!/usr/bin/env bash
# Qwen3-30B-A3B, dropless MoE, alltoall dispatcher, EP=8: CUDA graphs via Bridge Hydra overrides.
#
# Whole MoE layer? No. In dropless mode the tokens-per-expert split changes every
# step, and the alltoall dispatcher pulls those counts to the host (.cpu() /
# D2H sync) to build the all-to-all splits. Both break stream capture, so:
#   - empty module list (whole layer) -> fails during capture
#   - "moe" scope                     -> rejected unless drop-and-pad (capacity factor + padding)
#   - full_iteration                  -> same D2H problem, fails at capture
# And never list "moe" together with "moe_router": the two are mutually exclusive.
#
# What's safe to graph is the static part around the experts. The router's top-k
# feeds the host-side split computation, so leave the router eager and graph
# attention plus the permutation prep (moe_preprocess). That keeps every host
# sync outside the captured region.
#
# megatron-core 0.18+ keys (on 0.16/0.17 put the list in model.cuda_graph_scope instead).

set -euo pipefail

python scripts/training/run_recipe.py \
  --recipe qwen3_30b_a3b_pretrain_config \
  model.moe_token_dispatcher_type=alltoall \
  model.moe_flex_dispatcher_backend=null \
  model.expert_model_parallel_size=8 \
  model.cuda_graph_impl=transformer_engine \
  model.cuda_graph_scope=null \
  "model.cuda_graph_modules=[attn,moe_preprocess]" \
  model.cuda_graph_warmup_steps=3 \
  model.use_te_rng_tracker=true \
  rng.te_rng_tracker=true \
  "$@"

# Keep seq_length and micro_batch_size fixed (graphs replay static shapes).
# A/B against an eager run with the same seed and compare steady-state steps
# after the capture step (iteration 4 with 3 warmup steps), not the capture step itself.
# Alltoall-bound layouts often come out neutral. Keep graphs only if they beat eager.
