#!/bin/bash
# Llama-3-8B pretraining with Megatron-LM (mock data, bf16) on one 8-GPU node: the model's own
# shape (32 layers, hidden 4096, ffn 14336, GQA 8, seq 8192, vocab 128256), context parallel 2.
# Full-iteration CUDA graphs are on; NaN checks are off, as full-iteration capture requires.
export CUDA_DEVICE_MAX_CONNECTIONS=1

torchrun --nproc-per-node 8 --nnodes 1 pretrain_gpt.py \
  --num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336 --num-attention-heads 32 \
  --group-query-attention --num-query-groups 8 --kv-channels 128 \
  --seq-length 8192 --max-position-embeddings 8192 \
  --swiglu --normalization RMSNorm --position-embedding-type rope --rotary-base 500000 \
  --disable-bias-linear --untie-embeddings-and-output-weights \
  --attention-dropout 0.0 --hidden-dropout 0.0 \
  --tensor-model-parallel-size 1 --pipeline-model-parallel-size 1 --context-parallel-size 2 \
  --use-distributed-optimizer --overlap-grad-reduce --overlap-param-gather \
  --micro-batch-size 1 --global-batch-size 128 --train-iters 1000 \
  --lr 3e-4 --min-lr 3e-5 --lr-decay-style cosine --lr-warmup-iters 100 --clip-grad 1.0 \
  --bf16 --transformer-impl transformer_engine \
  --mock-data --tokenizer-type NullTokenizer --vocab-size 128256 --split 99,1,0 \
  --log-interval 10 --eval-iters 0 --eval-interval 100000 \
  --cuda-graph-impl full_iteration --te-rng-tracker --no-check-for-nan-in-loss-and-grad
