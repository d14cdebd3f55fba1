# Megatron-LM flags copied from an older recipe (megatron-core 0.16-style): full-iteration capture
# spelled as the local impl plus the full_iteration scope, NaN checks still on.
PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True \
torchrun --nproc-per-node 8 pretrain_gpt.py \
  --num-layers 16 --hidden-size 2048 --num-attention-heads 32 --seq-length 4096 \
  --micro-batch-size 1 --global-batch-size 128 --bf16 \
  --recompute-granularity full --recompute-method uniform --recompute-num-layers 1 \
  --cuda-graph-impl local --cuda-graph-scope full_iteration \
  --te-rng-tracker
