"""Llama 3 70B pretrain on 64 H100 (8 nodes) with Megatron Bridge - parallel sizing.

Reasoning:
  * TP shards every GEMM -> biggest per-GPU memory win, and sequence parallel
    rides on it. With 64 GPUs, TP=16 (two nodes) halves the per-GPU weight
    footprint vs TP=8, which lets us drop pipeline parallelism to 2 and nearly
    remove the bubble.
  * PP only as much as needed to fit: 2 stages x 40 layers, VPP=5 to shrink the bubble.
  * CP=1 at 8K sequence; use CP=2..8 for 32K-128K contexts (splits activations).
  * DP takes the rest: 64 / (16*2*1) = 2; distributed optimizer shards states over DP.
"""
from megatron.bridge.recipes.llama import llama3_70b_pretrain_config

cfg = llama3_70b_pretrain_config()

cfg.model.tensor_model_parallel_size = 16
cfg.model.sequence_parallel = True
cfg.model.pipeline_model_parallel_size = 2
cfg.model.virtual_pipeline_model_parallel_size = 5
cfg.model.context_parallel_size = 1
# DP = 64 / (TP * PP * CP) = 2

cfg.train.micro_batch_size = 1
cfg.train.global_batch_size = 512   # divisible by MBS * DP
cfg.ddp.use_distributed_optimizer = True

# Before a long run: estimate memory per GPU and A/B against TP=8/PP=4 for ~50 steps.
