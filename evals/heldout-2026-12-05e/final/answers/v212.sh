#!/usr/bin/env bash
# launch_dsv3_graphs.sh: DeepSeek-style MoE, EP A2A overlap + delayed wgrad + TE CUDA graphs
#
# Scope: with --overlap-moe-expert-parallel-comm, TE graphs may only cover attn, moe_router and
#   moe_preprocess. MCore asserts "CUDA graph scope on moe and mlp is not supported with
#   overlap_moe_expert_parallel_comm". No moe, no mlp, no whole-layer (empty) scope.
# Prereqs for delayed wgrad inside a partial graph:
#   * Transformer Engine >= 2.12 (older MCore asked for 2.10; current Megatron-LM checks 2.12)
#   * no attention bias (--disable-bias-linear, no --add-qkv-bias)
#   * TE RNG tracker
#   * gradient accumulation fusion OFF: with delay_wgrad_compute the weight gradient is produced
#     later, outside the graphed attention backward, so the fused "accumulate straight into
#     main_grad" GEMM has to be disabled and the plain autograd accumulation used instead.
# Watch grad norm: Megatron-LM#5966 reports NaN after ~80 iters with TE attn graphs + EP overlap;
# if you see it, drop attn from --cuda-graph-modules first, then all graph flags, to bisect.
set -euo pipefail

python - <<'PY'
import transformer_engine as te
from packaging.version import Version
v = Version(te.__version__.split("+")[0])
assert v >= Version("2.12.0"), f"TE {v} too old for delayed wgrad inside CUDA graphs"
print(f"TE {v} ok")
PY

ARGS_FILE=$(mktemp)
cat > "$ARGS_FILE" <<'ARGS'
--overlap-moe-expert-parallel-comm
--delay-wgrad-compute
--no-gradient-accumulation-fusion
--moe-token-dispatcher-type alltoall
--disable-bias-linear
--bf16
--cuda-graph-impl transformer_engine
--cuda-graph-modules attn moe_router moe_preprocess
--cuda-graph-warmup-steps 3
--te-rng-tracker
--log-num-zeros-in-grad
ARGS
# megatron-core 0.16-0.17: replace --cuda-graph-modules with --cuda-graph-scope

source ./model_args.sh   # defines MODEL_ARGS, PARALLEL_ARGS, DATA_ARGS arrays

# shellcheck disable=SC2046
torchrun --nproc-per-node 8 pretrain_gpt.py \
  $(tr '\n' ' ' < "$ARGS_FILE") \
  "${MODEL_ARGS[@]}" "${PARALLEL_ARGS[@]}" "${DATA_ARGS[@]}"
