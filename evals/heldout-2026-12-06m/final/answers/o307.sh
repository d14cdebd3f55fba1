#!/usr/bin/env bash
# Bisect: Qwen3-235B (TP2 PP8 VPP4 EP8, overlap_moe_expert_parallel_comm=True),
# TE CUDA graphs with scope attn -> grad norm explodes / NaN around iter 90.
#
# Strategy: same seed, same data order, same node count, 120 iterations each, and
# change exactly ONE thing per variant. Then diff the grad-norm/loss curves from
# iteration 1 (not just at 90): a replay-numerics bug usually shows as a small
# divergence that starts right after capture (iteration cuda_graph_warmup_steps+1).
#
# Bridge + megatron-core 0.18/0.19 spelling (cuda_graph_modules). On 0.16/0.17
# replace model.cuda_graph_modules with model.cuda_graph_scope.

set -euo pipefail

ENTRY=${ENTRY:-scripts/training/run_recipe.py}
RECIPE=${RECIPE:?set RECIPE to your qwen3_235b_a22b_* recipe function name}
COMMON=(
  --recipe "$RECIPE" --mode pretrain
  train.train_iters=120
  rng.seed=1234
  logger.log_interval=1
  checkpoint.save=null
)

declare -A VARIANTS=(
  # A: reference - graphs off entirely
  [A_eager]="model.cuda_graph_impl=none"
  # B: reproduce the failure exactly as configured today
  [B_te_attn]="model.cuda_graph_impl=transformer_engine model.cuda_graph_modules=[attn] model.use_te_rng_tracker=true rng.te_rng_tracker=true"
  # C: graphs on, EP A2A overlap off -> does the bug need the overlap schedule?
  #    (delay_wgrad_compute requires the overlap, so switch it off together)
  [C_te_attn_no_a2a_overlap]="model.cuda_graph_impl=transformer_engine model.cuda_graph_modules=[attn] model.use_te_rng_tracker=true rng.te_rng_tracker=true comm_overlap.overlap_moe_expert_parallel_comm=false comm_overlap.delay_wgrad_compute=false"
  # D: move the graph off attention onto the MoE block -> does the bug follow
  #    attention (TE param ordering / wgrad fusion) or the MoE/EP path?
  [D_te_moe]="model.cuda_graph_impl=transformer_engine model.cuda_graph_modules=[moe] model.use_te_rng_tracker=true rng.te_rng_tracker=true"
)

for name in A_eager B_te_attn C_te_attn_no_a2a_overlap D_te_moe; do
  echo ">>> $name"
  srun --kill-on-bad-exit=1 python "$ENTRY" "${COMMON[@]}" ${VARIANTS[$name]} \
      2>&1 | tee "bisect_${name}.log"
done

# Extract per-iteration grad norm and loss for plotting / diffing
for f in bisect_*.log; do
  grep -oE 'iteration +[0-9]+/.*lm loss: [0-9.E+-]+.*grad norm: [0-9.E+naninf-]+' "$f" \
    | sed -E 's/.*iteration +([0-9]+)\/.*lm loss: ([0-9.E+-]+).*grad norm: ([0-9.E+naninf-]+).*/\1,\2,\3/' \
    > "${f%.log}.csv"
done

# How to read it:
#  A ok, B NaN, C ok        -> interaction of partial graphs with the EP-overlap
#                              schedule (Megatron-LM#5966, still open): keep graphs
#                              off or overlap off for this model until fixed.
#  A ok, B NaN, C NaN, D ok -> attention-graph numerics: TE parameter order under
#                              PP 1F1B (TE #1138/#1233) or fuse_wgrad_accumulation
#                              not toggled on replay (TE #1204) -> upgrade TE/MCore;
#                              keep gradient_accumulation_fusion on with delayed wgrad.
#  NaN starts right after an eval interval -> validation replaying training graphs
#                              (MLM PR #6992) -> upgrade MCore.
# After upgrading TE + MCore, rerun B and overlay its curve on A before re-enabling.
