#!/usr/bin/env bash
# What happened
# -------------
# "Rank 0: 0 graphable layers." followed by
# "TECudaGraphHelper: No graphable layers found. Skipping CUDA graph capture."
# means TE graphs were silently switched off: the helper found nothing to capture, logged a
# warning and carried on eagerly. No error, so the run "works", just without graphs.
#
# Why 0: the TE helper only picks up layers that match the configured CUDA-graph scope. Your
# launch passes --cuda-graph-impl transformer_engine but no --cuda-graph-scope
# (--cuda-graph-modules on megatron-core 0.18+). With an empty scope list there is nothing for
# _layer_is_graphable() to match against, so every layer of the HybridModel is skipped. The
# dense GPT presets get away with it because their recipes fill the scope in for you.
#
# Fix: name the parts of the hybrid layers you want captured. For a Mamba/attention/MoE
# hybrid that is mamba + attn + the MoE router path (drop moe_router/moe_preprocess if the
# model has no MoE layers; 'mlp' only matches dense-MLP layers).

set -euo pipefail

MCORE_MINOR=$(python -c "import megatron.core as m; print(m.__version__.split('.')[1])")
if (( MCORE_MINOR >= 18 )); then
  SCOPE_FLAG=--cuda-graph-modules
else
  SCOPE_FLAG=--cuda-graph-scope
fi

GRAPH_ARGS=(
  --cuda-graph-impl transformer_engine
  "$SCOPE_FLAG" mamba attn moe_router moe_preprocess
  --cuda-graph-warmup-steps 3
  --te-rng-tracker
)

torchrun --nproc-per-node 8 pretrain_hybrid.py "${MODEL_ARGS[@]}" "${GRAPH_ARGS[@]}" 2>&1 | tee train.log

# Verify on every PP stage, not just rank 0: each stage must report K > 0 and a capture time.
grep -E "Rank [0-9]+: [0-9]+ graphable layers" train.log
grep "Time spent in CUDA Graphs capture" train.log
if grep -q "No graphable layers found" train.log; then
  echo "still no graphable layers: check that the scope names match the layer types in your hybrid pattern" >&2
  exit 1
fi
