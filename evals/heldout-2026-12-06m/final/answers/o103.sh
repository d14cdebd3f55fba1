#!/usr/bin/env bash
# Enable TE-scoped CUDA graphs (attn + mlp) in a Megatron Bridge recipe pinned to
# megatron-core 0.16.1.
#
# On 0.16.x/0.17.x the per-layer coverage key is `cuda_graph_scope`. `cuda_graph_modules` only
# appears in 0.18, and 0.16.1 does not have it: a plain attribute assignment would silently do
# nothing. `cuda_graph_impl` accepts only none|local|transformer_engine here, so there is no
# "full_iteration" impl either.
#
# The lines this script ends up with in your recipe:
#
#   cfg.model.cuda_graph_impl = "transformer_engine"
#   cfg.model.cuda_graph_scope = ["attn", "mlp"]
#   cfg.model.cuda_graph_warmup_steps = 3
#   cfg.model.use_te_rng_tracker = True
#   cfg.rng.te_rng_tracker = True
#
set -euo pipefail

RECIPE="${1:?usage: $0 path/to/my_recipe.py}"
cp "$RECIPE" "$RECIPE.bak"

# 1) flip the implementation (the stock recipes ship cuda_graph_impl = "none")
sed -i -E 's/^([[:space:]]*)cfg\.model\.cuda_graph_impl = .*/\1cfg.model.cuda_graph_impl = "transformer_engine"/' "$RECIPE"

# 2) replace the legacy default scope "full" (whole layer) with attn + mlp
sed -i -E 's/^([[:space:]]*)cfg\.model\.cuda_graph_scope = .*/\1cfg.model.cuda_graph_scope = ["attn", "mlp"]/' "$RECIPE"

# 3) warmup steps before capture (keep 3)
sed -i -E 's/^([[:space:]]*)cfg\.model\.cuda_graph_warmup_steps = .*/\1cfg.model.cuda_graph_warmup_steps = 3/' "$RECIPE"

# 4) graph-safe RNG: the GPT provider asserts use_te_rng_tracker when cuda_graph_impl != "none"
if ! grep -q 'cfg\.model\.use_te_rng_tracker' "$RECIPE"; then
  sed -i -E '/cfg\.model\.cuda_graph_warmup_steps = 3/a\    cfg.model.use_te_rng_tracker = True\n    cfg.rng.te_rng_tracker = True' "$RECIPE"
else
  sed -i -E 's/^([[:space:]]*)cfg\.model\.use_te_rng_tracker = .*/\1cfg.model.use_te_rng_tracker = True/' "$RECIPE"
  sed -i -E 's/^([[:space:]]*)cfg\.rng\.te_rng_tracker = .*/\1cfg.rng.te_rng_tracker = True/' "$RECIPE"
fi

# 5) guard rails: must NOT appear on 0.16.1
if grep -nE 'cuda_graph_modules|cuda_graph_impl = "full_iteration"' "$RECIPE"; then
  echo "ERROR: 0.18+ spelling found above; megatron-core 0.16.1 does not know it" >&2
  exit 1
fi

diff -u "$RECIPE.bak" "$RECIPE" || true

# Reminders (not automated):
#  - Dense model only: "mlp" is the dense-layer scope. On a MoE model you would use
#    moe_router/moe_preprocess (or moe with drop-and-pad) instead.
#  - Keep seq_length and micro_batch_size fixed. Graph replay assumes static shapes.
#  - Don't combine with recompute_granularity="full": on 0.16.1 that only works with
#    local + ["full_iteration"]. Selective recompute of modules outside the graph is fine.
#  - If PYTORCH_CUDA_ALLOC_CONF has expandable_segments:True, export NCCL_GRAPH_REGISTER=0.
#  - Time replay iterations after capture (warmup 3 + capture), not the capture step.
