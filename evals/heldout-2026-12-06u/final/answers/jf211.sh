#!/usr/bin/env bash
# DeepSeek-style MoE: EP A2A overlap + delayed wgrad + TE partial CUDA graphs
# Megatron-LM pretrain_gpt.py, megatron-core 0.18+/0.19 spelling (0.16-0.17: see bottom).
#
# Rules this follows (from TransformerConfig / validate_args / Bridge comm_overlap):
#   * overlap_moe_expert_parallel_comm + TE graphs: NO "moe" and NO "mlp" module
#       -> 'CUDA graph scope on moe and mlp is not supported with overlap_moe_expert_parallel_comm'
#     so the graphable set is attn, moe_router, moe_preprocess (moe_preprocess needs moe_router).
#   * delay_wgrad_compute with a graph that contains wgrad (attn, or moe_router when the shared
#     experts run inside it, i.e. not overlapped):
#       - Transformer Engine >= 2.12  ("CUDA graph with delay_wgrad_compute requires TE version >= 2.12.0.")
#         (TransformerConfig itself already needs TE >= 2.10 for delay_wgrad + partial graphs)
#       - gradient_accumulation_fusion ON: the delayed wgrad must accumulate into the static
#         main_grad buffers; the unfused path allocates fresh tensors -> breaks the graph
#       - no attention bias when attn is graphed (add_bias_linear / add_qkv_bias off)
#   * TE RNG tracker on.

set -euo pipefail

GRAPH_ARGS=(
  --cuda-graph-impl transformer_engine
  --cuda-graph-modules attn moe_router moe_preprocess   # never moe / mlp with EP overlap
  --cuda-graph-warmup-steps 3
  --te-rng-tracker
)

MOE_OVERLAP_ARGS=(
  --expert-model-parallel-size 8                 # EP overlap requires EP > 1
  --moe-token-dispatcher-type alltoall           # alltoall or flex
  --overlap-moe-expert-parallel-comm
  --delay-wgrad-compute                          # requires the EP overlap above
  # do NOT pass --moe-shared-expert-overlap (asserted off with EP overlap)
  # do NOT pass --no-gradient-accumulation-fusion (fusion is on by default; required here)
  --disable-bias-linear                          # no attention/linear bias with graphed attn + delayed wgrad
  # and no --add-qkv-bias
  --bf16                                         # EP overlap: bf16/fp16 only
)

DDP_ARGS=(
  --use-distributed-optimizer
  --overlap-grad-reduce                          # with delay_wgrad needs TE >= 2.8 in MLM
)

# Recompute: EP overlap forbids full recompute, recompute_method/num_layers and "moe" in
# recompute_modules. Keep it off, or selective without "moe".
# PP > 1 with EP overlap needs virtual pipeline stages (--num-layers-per-virtual-pipeline-stage ...).

python -c 'import transformer_engine as te; v=te.__version__; print("TE", v); \
from packaging.version import Version as V; assert V(v.split("+")[0]) >= V("2.12"), "need TE >= 2.12 for graphs + delay_wgrad"'

torchrun --nproc-per-node 8 pretrain_gpt.py \
  "${GRAPH_ARGS[@]}" "${MOE_OVERLAP_ARGS[@]}" "${DDP_ARGS[@]}" \
  "$@"   # model/data/optimizer args as before

# Validate before trusting it:
#   - log shows "Rank N: K graphable layers." with K > 0 on every PP stage, then capture finishes
#   - A/B against the same config without the three graph flags, same seed: loss and grad norm
#     must track. A grad-norm NaN after ~80 iterations has been reported with TE attn graphs +
#     EP overlap (Megatron-LM#5966); if you see NaN/Inf, drop the graph flags first to bisect,
#     then try without "attn" (attn-free graphs don't put wgrad in the graph unless shared
#     experts sit inside moe_router).
#
# megatron-core 0.16-0.17: same set spelled --cuda-graph-scope attn moe_router moe_preprocess
# (0.16 also requires cuda_graph_impl=transformer_engine whenever EP overlap is on).
