#!/bin/bash
# DeepSeek-style MoE: EP A2A overlap + delayed wgrad + TE-scoped CUDA graphs
# Target: megatron-core 0.19 flag spelling (0.16/0.17: replace --cuda-graph-modules with --cuda-graph-scope)
#
# Every line below is there because some assert in TransformerConfig.__post_init__
# or megatron/training/arguments.py validate_args would fire otherwise.
set -euo pipefail

# Hopper, TP=CP=1: the EP-overlap path wants more than 1 connection.
export CUDA_DEVICE_MAX_CONNECTIONS=32
# Only if you also use expandable segments (TE graphs assert without the second line):
# export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
# export NCCL_GRAPH_REGISTER=0

MOE_OVERLAP_ARGS=(
  --expert-model-parallel-size 8            # overlap_moe_expert_parallel_comm needs EP > 1
  --moe-token-dispatcher-type alltoall      # alltoall or flex only
  --overlap-moe-expert-parallel-comm
  --delay-wgrad-compute                     # requires the overlap above + transformer_impl=transformer_engine
  # no --moe-shared-expert-overlap          (must be off with EP overlap)
  # no --recompute-granularity full, no --recompute-method/--recompute-num-layers,
  # no "moe" in --recompute-modules         (all rejected with EP overlap)
  # --mtp-num-layers 0 or 1 at most
)

PARALLEL_ARGS=(
  --tensor-model-parallel-size 1
  --pipeline-model-parallel-size 4
  --num-virtual-stages-per-pipeline-rank 2  # PP>1 + EP overlap requires VPP
  --use-distributed-optimizer
  --overlap-grad-reduce
)

GRAPH_ARGS=(
  --cuda-graph-impl transformer_engine
  # With EP overlap only these are graphable; moe and mlp are rejected:
  # "CUDA graph scope on moe and mlp is not supported with overlap_moe_expert_parallel_comm"
  --cuda-graph-modules attn moe_router moe_preprocess
  --cuda-graph-warmup-steps 3
  --te-rng-tracker                          # auto-enabled for TE graphs anyway; explicit is clearer
)

# attn in the graph + delayed wgrad => wgrad must write into static main_grad buffers:
#  * keep gradient accumulation fusion ON (default). Do NOT pass --no-gradient-accumulation-fusion
#  * no attention/linear bias: --disable-bias-linear, and no --add-qkv-bias
#  * TE >= 2.12 (arguments.py); TransformerConfig alone checks >= 2.10
WGRAD_GRAPH_ARGS=(
  --disable-bias-linear
)

# moe_preprocess constraint for the alltoall dispatcher: no D2H sync in preprocess.
#  * keep dropless routing: no --moe-expert-capacity-factor
#  * no --moe-router-padding-for-fp8
PRECISION_ARGS=(
  --bf16                                    # EP overlap requires bf16 or fp16
)

python - <<'PY'
import torch
from megatron.core.utils import is_te_min_version, is_torch_min_version
assert is_torch_min_version("2.6.0"), "EP A2A overlap hangs on torch < 2.6"
assert is_te_min_version("2.12.0"), "CUDA graph + delay_wgrad_compute needs TE >= 2.12"
print("preflight ok:", torch.__version__)
PY

torchrun --nproc-per-node 8 --nnodes "${NNODES:-4}" pretrain_gpt.py \
  "${MODEL_ARGS[@]}" \
  "${MOE_OVERLAP_ARGS[@]}" \
  "${PARALLEL_ARGS[@]}" \
  "${GRAPH_ARGS[@]}" \
  "${WGRAD_GRAPH_ARGS[@]}" \
  "${PRECISION_ARGS[@]}" \
  "${DATA_ARGS[@]}" "${TRAIN_ARGS[@]}"

# After launch:
#  * log: "Rank N: K graphable layers." with K > 0 on every PP stage, then one capture-time line
#  * watch grad norm for the first few hundred iterations. NaN grad norm (~iter 80) has been
#    reported with TE attn graphs + EP overlap (Megatron-LM#5966). If you see it, bisect by
#    dropping --cuda-graph-impl/--cuda-graph-modules first, then --delay-wgrad-compute.
