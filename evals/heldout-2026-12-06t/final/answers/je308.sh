#!/usr/bin/env bash
# bisect_graph_nan.sh
#
# Goal: prove (or disprove) that the NaN at ~iter 90 comes from graph replay, then find which
# piece of "TE attn graphs + overlap_moe_expert_parallel_comm" is responsible.
#
# Known upstream matches for your exact setup, so you know what you're looking for:
#   - Megatron-LM#5966 (open): Qwen3-235B, TE `attn` graphs + EP overlap, NaN around iter 91.
#     Partial graphs interleaved with the EP-overlap schedule.
#   - PP/VPP 1F1B parameter order in TE graphs (Megatron-LM#422; TE PRs #1138/#1233) -> old TE.
#   - fuse_wgrad_accumulation flags not toggled on replay (TE PR #1204). With delay_wgrad_compute and
#     an `attn` scope, gradient_accumulation_fusion must stay ON (Megatron asserts it: the unfused
#     accumulation has no static addresses).
#   - validation replaying training graphs (Megatron-LM PR #6992): check if the NaN follows an eval.
#
# Everything below uses the same seed, data, checkpoint and container. Only the graph / overlap
# flags differ. NaN checks stay ON (TE-scoped graphs don't need them off; they're what stops the run).
set -euo pipefail

SEED=1234
ITERS=140                      # well past the ~90 where it blows up
mkdir -p bisect_logs

# Your full launch minus any --cuda-graph-* and --overlap-moe-expert-parallel-comm flags.
BASE=( "${MY_QWEN3_235B_ARGS[@]}"
       --seed "$SEED" --train-iters "$ITERS" --log-interval 1
       --tensor-model-parallel-size 2 --pipeline-model-parallel-size 8
       --num-layers-per-virtual-pipeline-stage "${LAYERS_PER_VSTAGE:?set me}"
       --expert-model-parallel-size 8 )

EP_OVERLAP=( --overlap-moe-expert-parallel-comm )

# megatron-core 0.18+: --cuda-graph-modules ; on 0.16/0.17 use --cuda-graph-scope instead.
GRAPH_ATTN=( --cuda-graph-impl transformer_engine --cuda-graph-modules attn --te-rng-tracker )
GRAPH_ROUTER=( --cuda-graph-impl transformer_engine --cuda-graph-modules moe_router moe_preprocess --te-rng-tracker )

run () {
  local name=$1; shift
  echo ">>> $name"
  srun ${SRUN_ARGS:-} python pretrain_gpt.py "${BASE[@]}" "$@" 2>&1 | tee "bisect_logs/$name.log" || true
}

# 1) the control: identical to the failing run, graphs off
run eager_epov           "${EP_OVERLAP[@]}"
# 2) the failing run, reproduced at this seed
run te_attn_epov         "${EP_OVERLAP[@]}" "${GRAPH_ATTN[@]}"
# 3) same graphs, EP overlap off  -> clean here = the #5966 interaction
run te_attn_noepov       "${GRAPH_ATTN[@]}"
# 4) EP overlap on, a graph scope without attention  -> clean here = keep this as your graphed config
run te_router_epov       "${EP_OVERLAP[@]}" "${GRAPH_ROUTER[@]}"
# (moe / mlp scopes aren't an option with EP overlap: TransformerConfig asserts on them.)

# Compare each graphed run against its eager control on post-capture steps, step by step.
for g in te_attn_epov te_router_epov; do
  skill-tools logs bisect_logs/eager_epov.log "bisect_logs/$g.log" --json > "bisect_logs/$g.cmp.json" || true
done
skill-tools logs bisect_logs/te_attn_noepov.log --json > bisect_logs/te_attn_noepov.capture.json || true

# Quick look at where loss/grad-norm first part ways (before the NaN, not at it):
for f in bisect_logs/*.log; do
  echo "== $f"; grep -E "iteration +(4|5|10|30|60|85|90|95)/" "$f" | grep -oE "lm loss: [^|]+|grad norm: [^|]+" | paste - - || true
done

# Next steps:
#  - If 2) diverges and 1) doesn't: upgrade Transformer Engine + megatron-core together (the pair a
#    release pins) and repeat 1) vs 2). Compare the loss curves, not just "NaN or not".
#  - If it still diverges after the upgrade and 3)/4) are clean: keep graphs off with EP overlap (or
#    run 4)), and attach these logs to Megatron-LM#5966.
