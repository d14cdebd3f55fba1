#!/usr/bin/env bash
# Q: Bridge + cuda_graph_impl="transformer_engine" dies with
#    "Transformer engine's RNG tracker is required for cudagraphs, it can be enabled with
#     use_te_rng_tracker=True'."  Someone suggested patching TE's CudaRNGStatesTracker.
#
# A: Don't patch TE. The assert is in Bridge's GPTModelProvider.provide()
#    (`if self.cuda_graph_impl != "none": assert use_te_rng_tracker`) and fires for ANY graph
#    impl, whatever the scope. Replayed graphs need RNG state that lives on the device and
#    advances per replay; TE's tracker provides that. The plain tracker can't, which is also why
#    MCore's local manager refuses it with "RNG tracker does not support cudagraphs!".
#    Patching TE's class would not change Bridge's flag check and risks replaying identical
#    dropout masks. Just turn the tracker on:
set -euo pipefail

RECIPE=${RECIPE:?set RECIPE to your recipe function, e.g. llama3_8b_pretrain_config}
NPROC=${NPROC:-8}

GRAPH_OVERRIDES=(
  model.cuda_graph_impl=transformer_engine
  # megatron-core 0.18+/0.19: per-layer modules live in cuda_graph_modules; clear the
  # deprecated key a stock recipe may set, otherwise 0.18+ asserts when both are set.
  model.cuda_graph_scope=null
  "model.cuda_graph_modules=[attn,mlp]"      # MoE (dropless): [attn,moe_router,moe_preprocess]
  # The actual fix: both RNG-tracker keys (model side and rng side).
  model.use_te_rng_tracker=true
  rng.te_rng_tracker=true
)
# megatron-core 0.16/0.17 instead:
#   model.cuda_graph_impl=transformer_engine "model.cuda_graph_scope=[attn,mlp]"
#   model.use_te_rng_tracker=true rng.te_rng_tracker=true

torchrun --nproc-per-node "$NPROC" scripts/training/run_recipe.py \
  --recipe "$RECIPE" --mode pretrain \
  "${GRAPH_OVERRIDES[@]}" "$@"

# Megatron-LM equivalent: --cuda-graph-impl transformer_engine --te-rng-tracker
# (arguments.py even turns it on for you, warning
#  "te_rng_tracker is not enabled, enabling it for CUDA graphs.").
#
# Check the run: no assert at model build; "Start CUDA Graphs capture..." and
# "Time spent in CUDA Graphs capture on rank 0: ..." after the warmup iterations.
