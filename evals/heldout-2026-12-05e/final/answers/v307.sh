#!/usr/bin/env bash
# bisect-graph-nan.sh: debug "grad norm -> NaN around iteration 90" on
# Qwen3-235B (TP2 PP8 VPP4 EP8, overlap_moe_expert_parallel_comm, TE graphs scope=attn).
#
# Treat it as a graph-replay numerics problem, not a data/LR problem: removing only the graph
# flags fixes it. Bisect in this order and stop at the first arm that diverges from eager.
#
# Known causes that match this setup (check your versions against them):
#   - partial TE graphs interleaved with the EP-overlap (1F1B A2A overlap) schedule:
#     Megatron-LM#5966, same model, NaN around iter 91, still open -> no fix yet, only avoidance
#   - wrong TE graph/parameter order with PP 1F1B / interleaved VPP (Megatron-LM#422; TE PRs #1138, #1233)
#   - fuse_wgrad_accumulation flags not toggled on replay (TE PR #1204); with delay_wgrad_compute keep
#     gradient_accumulation_fusion=True (MCore asserts it: the default accumulation has no static addresses)
#   - FSDP hooks captured in the wrong phase (TE PR #2831), validation replaying training graphs
#     (Megatron-LM PR #6992), NVFP4 + mamba-scope IMA after validation (TE#3316): not your config,
#     but rule them out if you change precision or parallelism.
set -euo pipefail

RECIPE=${RECIPE:?set RECIPE to your Qwen3-235B recipe function}
ITERS=${ITERS:-120}           # past the ~90 blow-up
SEED=${SEED:-1234}
COMMON="train.train_iters=${ITERS} rng.seed=${SEED} logger.log_interval=1 checkpoint.save=null"

TE_GRAPHS="model.cuda_graph_impl=transformer_engine model.use_te_rng_tracker=true rng.te_rng_tracker=true"

run () {  # run <tag> <overrides...>
  local tag=$1; shift
  torchrun ${TORCHRUN_ARGS:-} scripts/training/run_recipe.py --recipe "${RECIPE}" --mode pretrain \
      ${COMMON} "$@" 2>&1 | tee "logs/${tag}.log"
}
mkdir -p logs

# 0. Record versions: the answer depends on them.
python - <<'PY' | tee logs/versions.txt
import megatron.core, transformer_engine, torch
print("mcore", megatron.core.__version__, "te", transformer_engine.__version__, "torch", torch.__version__)
PY

# 1. Control: graphs off, same seed, same data order. Must stay finite past 90.
run A_eager model.cuda_graph_impl=none

# 2. Reproduce: graphs on, EP overlap on (your failing config).
run B_attn_epoverlap ${TE_GRAPHS} 'model.cuda_graph_modules=[attn]' model.overlap_moe_expert_parallel_comm=true

# 3. Narrow: same graphs, EP overlap off. If this one is clean, the interaction is
#    partial graphs x EP-overlap schedule (Megatron-LM#5966).
run C_attn_no_epoverlap ${TE_GRAPHS} 'model.cuda_graph_modules=[attn]' model.overlap_moe_expert_parallel_comm=false

# 4. Narrow the scope instead: keep EP overlap, graph only the router path.
run D_router_epoverlap ${TE_GRAPHS} 'model.cuda_graph_modules=[moe_router,moe_preprocess]' model.overlap_moe_expert_parallel_comm=true

# 5. Compare loss curves step by step against the eager control (bf16 noise ~1e-3).
for t in B_attn_epoverlap C_attn_no_epoverlap D_router_epoverlap; do
  skill-tools logs logs/A_eager.log "logs/${t}.log" --json > "logs/${t}.compare.json" || true
  python - "$t" <<'PY'
import json, sys
d = json.load(open(f"logs/{sys.argv[1]}.compare.json"))
print(sys.argv[1], "verdict:", d.get("comparison", {}).get("verdict"), "loss:", d.get("comparison", {}).get("loss"))
PY
done

cat <<'TXT'
Decision:
  * Upgrade TE and MCore first (the PP-order, wgrad-flag and hook-phase fixes are all version fixes),
    then rerun arms 1-2 and compare loss curves again.
  * If B still diverges and C is clean: keep EP overlap OR attn graphs, not both, until
    Megatron-LM#5966 is fixed. Pick whichever wins on step time in a matched A/B.
  * If every graph arm diverges: keep graphs off for this combination and file an issue with the
    versions, the arm table and the first divergent iteration.
  * Keep gradient_accumulation_fusion=True throughout (required with delayed wgrad + graphs).
TXT
