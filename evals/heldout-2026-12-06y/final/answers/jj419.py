"""Llama 3 70B pretraining on 64 x H100 (8 nodes x 8) with Megatron Bridge: parallel sizing.

How to choose, in order:

1. Tensor parallel (TP): keep it inside one node so its per-layer all-reduces/all-gathers stay on
   NVLink. For 70B (hidden 8192, 64 heads, 8 KV heads) TP=4 is the sweet spot on H100: TP=8 also
   works but the GEMMs get thin and the exposed TP communication grows. Always turn on sequence
   parallel with TP > 1 (it shards LayerNorm/dropout activations).
2. Pipeline parallel (PP): add it until the model fits. 70B in bf16 with distributed optimizer
   needs several stages at TP=4; PP=4 (20 of the 80 layers per stage) is what Bridge's recipes
   use. Add virtual pipeline (VPP) to shrink the bubble: with PP=4, VPP=5 gives 4 layers per
   virtual stage (80 / (4*5) = 4; the split has to be even). PP crosses nodes fine.
3. Context parallel (CP): only for long sequences. At 8K tokens CP=2 splits activation memory per
   GPU; at 4K you can usually drop it to CP=1; at 16K-64K raise it (4, 8, ...).
4. Data parallel (DP) takes the rest: DP = 64 / (TP * PP * CP).

This matches Bridge's own 64-GPU H100 perf recipe for Llama 3 70B (TP=4 PP=4 CP=2, VPP=5).
Validate with a memory estimate / a short run before long jobs: check peak memory on the first PP
stage (it holds the embedding and the most in-flight microbatches) and MFU; if memory is
tight, go PP=8 (VPP 5 or 10) before touching TP.
"""
from megatron.bridge.recipes.llama import llama3_70b_pretrain_config
from megatron.bridge.training.gpt_step import forward_step
from megatron.bridge.training.pretrain import pretrain

NUM_GPUS = 64
NUM_LAYERS = 80

cfg = llama3_70b_pretrain_config()

# --- parallel layout (all of these live on cfg.model) ---
TP, PP, VPP, CP = 4, 4, 5, 2
cfg.model.tensor_model_parallel_size = TP
cfg.model.sequence_parallel = True
cfg.model.pipeline_model_parallel_size = PP
cfg.model.virtual_pipeline_model_parallel_size = VPP
cfg.model.context_parallel_size = CP
cfg.model.seq_length = 8192
cfg.dataset.seq_length = 8192

# --- sanity arithmetic ---
assert NUM_LAYERS % (PP * VPP) == 0, "layers must split evenly over PP x VPP chunks"
assert 8 % TP == 0, "TP must fit inside one 8-GPU NVLink node"
model_parallel = TP * PP * CP
assert NUM_GPUS % model_parallel == 0
DP = NUM_GPUS // model_parallel        # = 2
print(f"TP={TP} PP={PP} VPP={VPP} CP={CP} -> DP={DP}, layers/virtual stage={NUM_LAYERS // (PP * VPP)}")

# Global batch must be divisible by micro_batch_size * DP; more microbatches per PP
# rank also shrink the pipeline bubble (aim for >= 4 * PP microbatches per step).
cfg.train.micro_batch_size = 1
cfg.train.global_batch_size = 256      # 256 / (1 * DP=2) = 128 microbatches per step
assert cfg.train.global_batch_size % (cfg.train.micro_batch_size * DP) == 0

if __name__ == "__main__":
    pretrain(config=cfg, forward_step_func=forward_step)

# Alternatives worth benchmarking on your cluster:
#   4K sequences:  TP=4, PP=4, VPP=5, CP=1 -> DP=4
#   tight memory:  TP=4, PP=8, VPP=5 (2 layers/virtual stage), CP=2 -> DP=1
#   TP=8:          only if TP=4 doesn't fit even with more PP; keeps TP inside the node but
#                  usually lowers per-GPU throughput for a model this size.
# Never TP > 8 on H100 nodes: TP traffic would cross InfiniBand on every layer.
