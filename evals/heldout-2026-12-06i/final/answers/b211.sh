#!/bin/bash
#SBATCH --job-name=dsv3-proxy-epoverlap-cg
#SBATCH --nodes=4 --ntasks-per-node=8 --gpus-per-node=8 --exclusive
#
# DeepSeek-style MoE on Megatron-LM (megatron-core 0.19) with
#   EP A2A overlap + delayed wgrad + TE-scoped CUDA graphs.
#
# Which scopes: with --overlap-moe-expert-parallel-comm, TransformerConfig rejects
# 'moe' and 'mlp' under --cuda-graph-impl transformer_engine
#   ("CUDA graph scope on moe and mlp is not supported with overlap_moe_expert_parallel_comm").
# What's left to graph is attn + moe_router + moe_preprocess (preprocess needs router).
#
# Prereqs for delay_wgrad_compute + partial graphs:
#   * TE >= 2.12 (arguments.py asserts this when attn / router-with-shared-experts wgrad is in scope;
#     TransformerConfig alone only asks for 2.10)
#   * no attention bias in the graphed attn  -> --disable-bias-linear, no --add-qkv-bias
#   * TE RNG tracker
#   * gradient accumulation fusion OFF: the fused path accumulates straight into
#     param.main_grad from TE's wgrad kernel, which lives outside the captured region when
#     wgrad is delayed, so the graph would replay against a main_grad it never saw.
#     Plain accumulation keeps the wgrad inside TE's graphed backward.
set -euo pipefail
python -c "import transformer_engine as te; from packaging.version import Version as V; assert V(te.__version__) >= V('2.12'), te.__version__"

export CUDA_DEVICE_MAX_CONNECTIONS=32
# If you add PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, NCCL_GRAPH_REGISTER=0 must come with it.

MODEL_ARGS=(
  --num-layers 16 --hidden-size 4096 --ffn-hidden-size 12288
  --num-attention-heads 32 --multi-latent-attention
  --kv-lora-rank 512 --q-lora-rank 1536
  --qk-head-dim 128 --qk-pos-emb-head-dim 64 --v-head-dim 128
  --num-experts 64 --moe-ffn-hidden-size 1536 --moe-router-topk 6
  --moe-shared-expert-intermediate-size 1536
  --moe-layer-freq "([0]*1+[1]*15)"
  --disable-bias-linear
  --seq-length 4096 --max-position-embeddings 4096
  --bf16
)

PARALLEL_ARGS=(
  --tensor-model-parallel-size 1
  --pipeline-model-parallel-size 2
  --num-layers-per-virtual-pipeline-stage 2     # EP overlap with PP>1 requires VPP
  --expert-model-parallel-size 8
  --moe-token-dispatcher-type alltoall
  --moe-grouped-gemm
  --use-distributed-optimizer
  --overlap-grad-reduce
)

OVERLAP_ARGS=(
  --overlap-moe-expert-parallel-comm
  --delay-wgrad-compute
  --no-gradient-accumulation-fusion
)

CG_ARGS=(
  --cuda-graph-impl transformer_engine
  --cuda-graph-modules attn moe_router moe_preprocess
  --cuda-graph-warmup-steps 3
  --te-rng-tracker
)

TRAIN_ARGS=(
  --micro-batch-size 1 --global-batch-size 256
  --train-iters 200 --lr 1e-4 --min-lr 1e-5 --lr-decay-style cosine
  --log-interval 1
)

srun --cpu-bind=none python pretrain_gpt.py \
  "${MODEL_ARGS[@]}" "${PARALLEL_ARGS[@]}" "${OVERLAP_ARGS[@]}" \
  "${CG_ARGS[@]}" "${TRAIN_ARGS[@]}" \
  --mock-data --tokenizer-type NullTokenizer --vocab-size 129280

# Watch: grad-norm each iteration. A NaN grad norm after ~80 iters has been reported with TE attn
# graphs + EP overlap (Megatron-LM#5966). If you see it, bisect by dropping CG_ARGS first.
