#!/usr/bin/env bash
# Bisect plan: Qwen3-235B (TP2 PP8 VPP4 EP8, overlap_moe_expert_parallel_comm),
# TE CUDA graphs on `attn`, grad norm blows up -> NaN around iteration 90,
# graphs off = fine.
#
# Treat it as a graph-replay numerics bug until shown otherwise: a CUDA graph
# must not change the math. With the same seed and data order, a graphed run
# should track eager to bf16 noise step for step. Anything else means replay
# is using wrong/stale buffers or is interleaved wrongly with the schedule.
#
# Every run below: same seed, same data, same container, ~120 iters (past the
# blow-up), log-interval 1 so you get per-step loss + grad norm.
# Keep the NaN checks ON (check_for_nan_in_loss / check_for_nan_in_grad): with
# TE-scoped graphs they run outside the captured region, and they're what stops
# a diverging run. Only full-iteration graphs need them off.
#
# Adjust LAUNCH to however you start the recipe (Bridge run script + Hydra
# overrides shown). Keys are the megatron-core 0.18+/0.19 spelling; on 0.16-0.17
# replace `model.cuda_graph_modules=[...]` with `model.cuda_graph_scope=[...]`
# and drop the `cuda_graph_scope=null` line.

set -euo pipefail

LAUNCH=${LAUNCH:-"python scripts/training/run_recipe.py --recipe qwen3_235b_a22b_pretrain_256gpu_h100_bf16_config"}
COMMON="train.train_iters=120 rng.seed=1234 logger.log_interval=1"

run () {  # run NAME overrides...
  local name=$1; shift
  echo "=== $name"
  $LAUNCH $COMMON "$@" 2>&1 | tee "bisect-$name.log"
}

# 0) Baseline, graphs off. This is the reference loss/grad-norm curve.
run eager model.cuda_graph_impl=none

# 1) Reproduce: your exact graph config. Note the first step where loss or
#    grad norm departs from (0) by more than bf16 noise. It is usually well
#    before 90; the NaN is just where it ends up.
run te-attn \
  model.cuda_graph_impl=transformer_engine model.cuda_graph_scope=null \
  'model.cuda_graph_modules=[attn]' \
  model.use_te_rng_tracker=true rng.te_rng_tracker=true

# 2) Same graphs, EP overlap off. If this one is clean, you're looking at
#    TE partial graphs interleaved with the 1F1B EP-overlap schedule:
#    Megatron-LM#5966 (Qwen3-235B, TE attn graphs + EP overlap, NaN ~it 91;
#    open). Fix = keep graphs off for that combination or drop `attn`.
#    (If your recipe sets these on the model rather than in comm_overlap, use
#    model.overlap_moe_expert_parallel_comm=false model.delay_wgrad_compute=false.)
run te-attn-no-epoverlap \
  model.cuda_graph_impl=transformer_engine model.cuda_graph_scope=null \
  'model.cuda_graph_modules=[attn]' \
  model.use_te_rng_tracker=true rng.te_rng_tracker=true \
  comm_overlap.overlap_moe_expert_parallel_comm=false \
  comm_overlap.delay_wgrad_compute=false

# 3) Keep EP overlap, graph the router instead of attention. This is legal with
#    EP overlap (only `moe` and `mlp` are refused there). It tells you whether
#    the problem is specific to graphed attention under the overlap schedule.
run te-router \
  model.cuda_graph_impl=transformer_engine model.cuda_graph_scope=null \
  'model.cuda_graph_modules=[moe_router,moe_preprocess]' \
  model.use_te_rng_tracker=true rng.te_rng_tracker=true

# 4) Compare the curves side by side.
for f in bisect-*.log; do
  echo "--- $f"; grep -E "iteration +(1|10|30|60|80|85|90|95) /" "$f" | \
    grep -oE "lm loss: [0-9.eE+-]+|grad norm: [0-9.eE+naNinf]+" | paste - - | head -20
done

# Other known replay-numerics causes to check against your versions
# (while bisecting, upgrade TE + megatron-core first; several are already fixed):
#  * TE parameter/grad order under PP 1F1B with interleaving: replay consumed
#    buffers in the wrong order (Megatron-LM#422, TransformerEngine PRs #1138/#1233).
#    You run PP8 VPP4, so an old TE is a prime suspect.
#  * fuse_wgrad_accumulation flags not toggled on replay, so the wgrad lands in
#    the wrong main_grad state (TransformerEngine PR #1204). Keep
#    gradient_accumulation_fusion=True. With delay_wgrad_compute and graphed attn,
#    Megatron-LM asserts TE >= 2.12 and gradient_accumulation_fusion.
#  * validation replaying training graphs (Megatron-LM PR #6992): if the first
#    bad step comes right after an eval interval, that's the one.
#  * FSDP hooks captured in the wrong phase (TransformerEngine PR #2831), only if
#    you use Megatron-FSDP.
#
# Outcome: confirm with (0) vs (1), isolate with (2)/(3), upgrade TE/MCore, rerun
# (1) and compare curves. Until a graphed run matches eager, keep graphs off
# (or off `attn`) for EP-overlap runs. Report it on Megatron-LM#5966 with your
# versions and the first diverging step.
