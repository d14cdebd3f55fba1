"""Llama 3 70B pretraining on 64 H100s (8 nodes x 8) with Megatron Bridge: parallelism sizing.

How to choose, in order:

1. TP (tensor parallel) stays inside one node. TP all-reduces/all-gathers activations in every
   layer, so it needs NVLink; on H100 nodes that means TP <= 8. For 70B (hidden 8192, 64 heads,
   8 KV heads) TP=4 or TP=8 both divide evenly. TP=4 with sequence parallelism is the usual sweet
   spot: TP=8 cuts memory further but the GEMMs get thin and communication grows.
2. PP (pipeline parallel) is what you add to make the model fit, and it is the dimension that
   crosses nodes cheaply (only point-to-point activations at stage boundaries). 80 layers / PP=4
   = 20 layers per stage. Use the interleaved schedule (virtual pipeline, VPP) to shrink the
   bubble: the layers per stage must split evenly into VPP chunks (20 / 5 = 4 layers per chunk).
   Bubble fraction ~ (PP-1) / (VPP * num_microbatches), so keep enough microbatches per step.
3. CP (context parallel) is for long sequences: it splits the sequence across GPUs to cut
   activation memory. At 8K tokens CP=2 is what NVIDIA's H100 recipe uses; at 2-4K you can
   usually drop to CP=1; at 32K-128K raise it (CP=4-16).
4. DP gets the rest: DP = 64 / (TP * PP * CP). Use the distributed optimizer so optimizer state
   is sharded over DP. global_batch_size must be divisible by micro_batch_size * DP.

NVIDIA's own 64x H100 BF16 configuration for this model (Megatron-Bridge v0.6.0,
perf_recipes/llama/h100/llama3.py: "TP=4 PP=4 CP=2, GBS=256", VPP=5, SP on) gives
TP*PP*CP = 32 -> DP = 2. That is the starting point below.
"""
from megatron.bridge.recipes.llama import llama3_70b_pretrain_config
from megatron.bridge.training.gpt_step import forward_step
from megatron.bridge.training.pretrain import pretrain

NUM_GPUS = 64

cfg = llama3_70b_pretrain_config()

# --- parallelism (all of these live on cfg.model) ---
cfg.model.tensor_model_parallel_size = 4            # inside the NVLink node
cfg.model.sequence_parallel = True                  # shard LayerNorm/dropout activations over TP
cfg.model.pipeline_model_parallel_size = 4          # 80 layers -> 20 per stage
cfg.model.virtual_pipeline_model_parallel_size = 5  # 20 -> 4 layers per virtual chunk
cfg.model.context_parallel_size = 2                 # 8K sequence; set 1 for <=4K, more for long context
cfg.model.seq_length = 8192
cfg.dataset.seq_length = 8192

tp, pp, cp = (cfg.model.tensor_model_parallel_size,
              cfg.model.pipeline_model_parallel_size,
              cfg.model.context_parallel_size)
assert NUM_GPUS % (tp * pp * cp) == 0
dp = NUM_GPUS // (tp * pp * cp)                      # = 2

# --- batch ---
cfg.train.micro_batch_size = 1
cfg.train.global_batch_size = 256                    # 256 / (1 * 2) = 128 microbatches per DP rank
assert cfg.train.global_batch_size % (cfg.train.micro_batch_size * dp) == 0

# --- optimizer state sharded across DP ---
cfg.ddp.use_distributed_optimizer = True

# Alternatives worth an A/B on your cluster:
#   TP=8, PP=4, VPP=5, CP=1 (DP=2)   -> if you run 4K sequences
#   TP=4, PP=8, VPP=5, CP=1 (DP=2)   -> more pipeline, less TP traffic (NVIDIA uses PP=8 for FP8)
# Never let TP span nodes (TP > 8 on H100), and keep 80 % PP == 0 and (80 / PP) % VPP == 0.

if __name__ == "__main__":
    pretrain(config=cfg, forward_step_func=forward_step)
