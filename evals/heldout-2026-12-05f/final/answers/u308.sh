#!/usr/bin/env bash
# nan_bisect.sh: A/B bisection for "grad norm explodes -> NaN ~it 90 only with CUDA graphs".
#
# Diagnosis first: graphs replay the same kernels, so a graphed run that diverges from eager at
# the same seed is a replay-numerics bug (wrong/stale buffer or order), not "bad luck". Your
# combination (Qwen3-235B, TP2 PP8 VPP4 EP8, overlap_moe_expert_parallel_comm, TE `attn` graphs)
# matches the open report Megatron-LM#5966 (NaN at iteration 91). Other known causes:
#   - partial graphs interleaved with the EP-overlap 1F1B order (MCore rebuilds the capture
#     order per layer with get_overlap_moe_expert_parallel_comm_order; with delay_wgrad_compute
#     and graphed attn it also captures wgrad graphs)
#   - fuse_wgrad_accumulation state not toggled on replay (TransformerEngine PR #1204): keep
#     gradient_accumulation_fusion=True, which MCore 0.19 requires for delayed wgrad + graphs
#   - parameter order under PP 1F1B (TransformerEngine PRs #1138/#1233, Megatron-LM#422)
#   - FSDP hooks captured in the wrong phase (TE PR #2831), validation replaying training graphs
#     (Megatron-LM PR #6992), NVFP4 + mamba scope IMA after validation (TE#3316)
#
# Plan: upgrade TE + MCore first, then run the arms below with the same seed and data order
# and compare loss curves step by step. If no graphed arm matches eager, keep graphs off for
# this combination until #5966 is fixed.
set -euo pipefail

RECIPE=${RECIPE:?set RECIPE to your recipe function, e.g. qwen3_235b_a22b_pretrain_64gpu_b200_bf16_config}
ITERS=${ITERS:-150}
SEED=${SEED:-1234}
OUT=${OUT:-nan_bisect}
mkdir -p "$OUT"

# Era-correct spelling of a TE scope list (0.18+: cuda_graph_modules, clear the old key).
MCORE=$(python -c "import megatron.core as m; print(m.__version__)")
scope() {  # $1 = comma list
  if python -c "import sys; from packaging.version import Version as V; sys.exit(V('$MCORE') < V('0.18'))"; then
    echo "model.cuda_graph_scope=null model.cuda_graph_modules=[$1]"
  else
    echo "model.cuda_graph_scope=[$1]"
  fi
}

COMMON="train.train_iters=$ITERS rng.seed=$SEED model.use_te_rng_tracker=true rng.te_rng_tracker=true \
model.gradient_accumulation_fusion=true rerun_state_machine.check_for_nan_in_loss=true"
TE="model.cuda_graph_impl=transformer_engine"

declare -A ARM=(
  [0_eager]="model.cuda_graph_impl=none"
  [1_graphs_as_is]="$TE $(scope attn)"
  [2_graphs_no_ep_overlap]="$TE $(scope attn) model.overlap_moe_expert_parallel_comm=false model.delay_wgrad_compute=false"
  [3_router_scope_with_ep_overlap]="$TE $(scope moe_router,moe_preprocess)"
)

for name in $(printf '%s\n' "${!ARM[@]}" | sort); do
  echo "=== $name"
  # shellcheck disable=SC2086
  torchrun --nnodes "${NNODES:-16}" --nproc-per-node 8 scripts/training/run_recipe.py \
      --recipe "$RECIPE" $COMMON ${ARM[$name]} 2>&1 | tee "$OUT/$name.log" || true
done

# Step-by-step loss comparison against eager: first iteration that differs beyond bf16 noise.
python - "$OUT" <<'PY'
import re, sys, pathlib
out = pathlib.Path(sys.argv[1])
pat = re.compile(r"iteration\s+(\d+)/.*?lm loss: ([0-9.Ee+-]+|nan)", re.I)
def curve(p):
    return {int(i): float(l) for i, l in pat.findall(p.read_text(errors="ignore"))}
base = curve(out / "0_eager.log")
for log in sorted(out.glob("[1-9]_*.log")):
    c = curve(log); first = None
    for it in sorted(set(base) & set(c)):
        if not (abs(c[it] - base[it]) <= 1e-3):   # also catches NaN
            first = it; break
    print(f"{log.stem:34s} first divergence: {first if first else 'none (parity)'}")
PY
# Reading it:
#  1 diverges, 2 matches  -> partial graphs x EP-overlap schedule (#5966): drop EP overlap or graphs
#  1 diverges, 3 matches  -> graphed attn is the culprit: keep moe_router+moe_preprocess
#  all graphed arms diverge after the upgrade -> graphs off for this combination; report upstream
