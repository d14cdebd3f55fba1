"""Llama 3 70B pretraining on 64x H100 (8 nodes x 8) with Megatron Bridge: choosing TP / PP / CP.

This is a parallelism-sizing question; CUDA graphs have nothing to do with it. How to reason about it:

1. TP (tensor parallel) stays inside one node. TP does an all-reduce/reduce-scatter in every layer,
   so it needs NVLink: TP <= 8 on H100. 70B has 64 query / 8 KV heads and hidden 8192, so TP=4
   or TP=8 both divide evenly. With sequence_parallel=True the activations are sharded too.
2. PP (pipeline parallel) fits the rest of the model into memory. 70B in bf16 with an fp32
   distributed optimizer doesn't fit at TP=4 alone, so add PP. Llama 3 70B has 80 layers: PP must
   divide 80, and with interleaving (virtual pipeline, VPP) the layers per PP stage must be
   divisible by VPP. PP=4, VPP=5 gives 20 layers per stage and 4 layers per virtual chunk, which
   cuts the pipeline bubble by about VPP.
3. CP (context parallel) is for long sequences. At 8K, CP=2 halves per-GPU activation memory; at
   16K-64K raise it (2-8). At 4K you usually want CP=1.
4. DP takes what's left: DP = 64 / (TP * PP * CP). Keep global_batch_size divisible by
   micro_batch_size * DP, and with PP keep enough microbatches per step (GBS / (MBS * DP) >> PP)
   so the bubble stays small.

Bridge's own 64x H100 BF16 performance recipe uses exactly TP=4, PP=4 (VPP=5), CP=2, SP on -> DP=2
(perf_recipes/llama/h100/llama3.py, llama3_70b_pretrain_64gpu_h100_bf16_config, Bridge v0.6.0).
Start there, then A/B one change at a time, e.g. TP=8/PP=2 or PP=8/CP=1 (the FP8 recipe's layout),
checking tokens/s/GPU and peak memory.
"""

from megatron.bridge.recipes.llama import llama3_70b_pretrain_config

cfg = llama3_70b_pretrain_config()

# Parallel sizes live on the model provider (cfg.model), not on cfg.train or cfg.ddp.
cfg.model.tensor_model_parallel_size = 4            # inside a node, on NVLink
cfg.model.sequence_parallel = True                  # shard LayerNorm/dropout activations across TP
cfg.model.pipeline_model_parallel_size = 4          # 80 layers / 4 = 20 per stage
cfg.model.virtual_pipeline_model_parallel_size = 5  # 20 / 5 = 4 layers per chunk (interleaved 1F1B)
cfg.model.context_parallel_size = 2                 # 8K sequence
cfg.model.seq_length = 8192
cfg.dataset.seq_length = 8192                       # keep dataset and model in sync

# DP = 64 / (4 * 4 * 2) = 2
cfg.train.micro_batch_size = 1
cfg.train.global_batch_size = 256                   # 256 / (1 * 2) = 128 microbatches per step >> PP=4

# Overlap to hide the added communication (DP grads / params with the distributed optimizer).
cfg.ddp.overlap_grad_reduce = True
cfg.ddp.overlap_param_gather = True

# Launch: torchrun (or your Slurm launcher) with 8 nodes x 8 GPUs, then pretrain(cfg, forward_step).
# Sanity checks before a long run: the first iterations print per-rank memory; keep ~10% headroom
# and compare tokens/s/GPU across the 2-3 candidate layouts on a short run.
