#!/usr/bin/env bash
# nan_bisect.sh -- bisect the iter-90 grad-norm NaN on Qwen3-235B
# (TP2 PP8 VPP4 EP8, overlap_moe_expert_parallel_comm, TE graphs with scope attn).
#
# Usage: ./nan_bisect.sh <stage>     stages: control | graphs | no-ep-overlap | router-scope
# Every stage uses the same seed, data order and checkpoint, and runs 150 iterations so the
# NaN point (~90) is covered. Overlay lm loss + grad norm of each stage against "control".
#
# Background: this matches Megatron-LM#5966 (TE attn graphs + EP overlap, NaN ~iter 91).
# Other known replay-numerics causes: TE parameter order under PP 1F1B (TE PRs #1138/#1233),
# fuse_wgrad_accumulation flags not toggled on replay (TE PR #1204 -- keep
# gradient_accumulation_fusion on), validation replaying the training graphs (MLM PR #6992).
# Upgrade TE and Megatron-Core first and rerun "control" vs "graphs" before anything else.
#
# Note: Transformer Engine's RNG tracker is itself a frequent source of replayed-dropout NaNs
# with partial graphs; if the "graphs" stage still diverges after the upgrade, rerun it with
# the TE RNG tracker switched off to rule it out before filing the bug.
set -euo pipefail

STAGE="${1:?stage required}"
MCORE_VER=$(python -c "import megatron.core as m; print(m.__version__)")
if python - "$MCORE_VER" <<'PY'
import sys
major, minor = (int(x) for x in sys.argv[1].split(".")[:2])
sys.exit(0 if (major, minor) >= (0, 18) else 1)
PY
then SCOPE_KEY="model.cuda_graph_modules"; CLEAR="model.cuda_graph_scope=null"
else SCOPE_KEY="model.cuda_graph_scope"; CLEAR=""
fi

COMMON=(
  rng.seed=1234
  train.train_iters=150
  logger.log_interval=1
  model.use_te_rng_tracker=true
  rng.te_rng_tracker=true
  model.gradient_accumulation_fusion=true
)

case "$STAGE" in
  control)
    GRAPH=(model.cuda_graph_impl=none)
    ;;
  graphs)
    GRAPH=(model.cuda_graph_impl=transformer_engine "${SCOPE_KEY}=[attn]" $CLEAR)
    ;;
  no-ep-overlap)
    # same graphs, EP overlap off: if this is stable you are on #5966
    GRAPH=(model.cuda_graph_impl=transformer_engine "${SCOPE_KEY}=[attn]" $CLEAR
           comm_overlap.overlap_moe_expert_parallel_comm=false)
    ;;
  router-scope)
    # narrower scope, keep EP overlap: attn graphs vs overlapped dispatch
    GRAPH=(model.cuda_graph_impl=transformer_engine "${SCOPE_KEY}=[moe_router,moe_preprocess]" $CLEAR)
    ;;
  *) echo "unknown stage $STAGE" >&2; exit 2 ;;
esac

echo "[nan_bisect] megatron-core $MCORE_VER stage=$STAGE"
torchrun --nnodes "${NNODES:-32}" --nproc-per-node 8 \
  scripts/training/run_recipe.py --recipe qwen3_235b_a22b_pretrain_config \
  "${COMMON[@]}" "${GRAPH[@]}" 2>&1 | tee "nan_bisect_${STAGE}.log"

# Until an upgraded stack shows loss parity, run production with stage "control" settings.
