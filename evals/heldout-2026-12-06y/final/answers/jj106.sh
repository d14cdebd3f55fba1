#!/usr/bin/env bash
# Qwen3-30B-A3B, dropless MoE, alltoall dispatcher, EP=8: TE-scoped CUDA graphs.
# megatron-core 0.19 + Megatron Bridge.
#
# Scope choice:
#   * Do NOT graph the whole MoE layer. With dropless routing the per-expert token
#     counts change every step and the alltoall dispatcher syncs them to the host
#     (DtoH) to size its buffers. That can't live inside a CUDA graph. The "moe"
#     scope by itself is for drop-and-pad MoE only.
#   * Graph the router + preprocess instead: static shapes, lots of small kernels,
#     which is exactly where launch overhead hurts.
#   * moe_preprocess needs moe_router in the list.
#
# Profile eager first; compare post-capture iterations vs eager (same seed).
set -euo pipefail

RECIPE=qwen3_30b_a3b_pretrain_config

torchrun --nproc-per-node 8 scripts/training/run_recipe.py \
  --recipe "${RECIPE}" --mode pretrain --dataset mock \
  -sl 4096 -mb 1 -ep 8 \
  model.moe_token_dispatcher_type=alltoall \
  model.cuda_graph_impl=transformer_engine \
  model.cuda_graph_scope=null \
  'model.cuda_graph_modules=[moe_router,moe_preprocess]' \
  model.cuda_graph_warmup_steps=3 \
  model.use_te_rng_tracker=true \
  rng.te_rng_tracker=true \
  2>&1 | tee graphs_router.log

# Phase 2: once the router graphs replay cleanly, A/B adding attention:
#   'model.cuda_graph_modules=[attn,moe_router,moe_preprocess]'
#
# Phase 3 (optional, biggest win if it holds): also capture the expert compute
# by adding "moe" on top of the router graphs:
#   'model.cuda_graph_modules=[attn,moe_router,moe_preprocess,moe]'
# With moe_router captured alongside, the routed token layout feeding the
# experts comes from the router graph's static output buffers, so the expert
# GEMMs see fixed shapes even with dropless routing.
#
# Expect neutral results on some alltoall-bound shapes; keep whatever wins the
# steady-state A/B.
