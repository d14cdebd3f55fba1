"""Llama 3 70B pretraining on 64x H100 (8 nodes x 8) with Megatron Bridge: parallel sizes.

How to size it
--------------
1. TP (tensor parallel): keep it inside one NVLink node, 4 or 8. TP all-reduces activations in
   every layer, so crossing the InfiniBand boundary with it is a big slowdown. Llama 3 70B
   (hidden 8192, 64 heads, 8 KV groups) is comfortable at TP=4; TP=8 if you need the memory.
   Turn on sequence_parallel with TP > 1 (shards LayerNorm/dropout activations, free memory).
2. PP (pipeline parallel): add it until the model + optimizer state fit. PP crosses nodes fine
   (only point-to-point activations at stage boundaries). 80 layers -> choose a PP that divides
   80 (2, 4, 5, 8, ...). Use virtual pipeline (interleaving) to shrink the bubble; layers per
   stage must divide by VPP: PP=4 -> 20 layers/stage -> VPP=5 gives 4-layer chunks.
3. CP (context parallel): only for long sequences. At 8K tokens CP=2 helps activation memory
   (that's what Bridge's own 70B recipe uses); at 4K you can usually leave CP=1; at 32K+ go 4-8.
4. DP takes the rest: DP = 64 / (TP * PP * CP). Use the distributed optimizer so Adam states are
   sharded across DP.

Starting point (Bridge's llama3_70b recipe layout, which targets 32 GPUs, scaled to 64):
    TP=4, PP=4, VPP=5, CP=2, SP=on  ->  DP = 64 / (4*4*2) = 2
If you train at 4K instead of 8K:
    TP=4, PP=4, VPP=5, CP=1         ->  DP = 4   (more data parallel, less CP traffic)

Rough memory check for TP=4 x PP=4 (16-way model split): ~4.4B params per GPU ->
bf16 weights ~8.8 GB + fp32 grads ~17.6 GB + fp32 master/Adam ~53 GB divided by the
distributed-optimizer group, plus activations. Verify with a short run (watch
max-allocated memory on the first PP stage, which holds the most in-flight micro-batches).

Global batch: with PP you want many micro-batches per step (>= 4 * PP is a good floor for
the bubble); num_microbatches = global_batch_size / (micro_batch_size * DP).
"""

from megatron.bridge.recipes.llama import llama3_70b_pretrain_config
from megatron.bridge.training.gpt_step import forward_step
from megatron.bridge.training.pretrain import pretrain

cfg = llama3_70b_pretrain_config()

# Parallelism lives on the model provider (cfg.model), not on train/ddp.
cfg.model.tensor_model_parallel_size = 4             # within a node (NVLink)
cfg.model.sequence_parallel = True                   # goes with TP > 1
cfg.model.pipeline_model_parallel_size = 4           # 80 layers -> 20 per stage
cfg.model.virtual_pipeline_model_parallel_size = 5   # 20 / 5 = 4 layers per chunk
cfg.model.context_parallel_size = 2                  # 8K sequences; set 1 for <= 4K
cfg.model.seq_length = 8192
cfg.dataset.seq_length = 8192                        # keep in sync with the model

cfg.train.micro_batch_size = 1
cfg.train.global_batch_size = 512                    # DP=2 -> 256 micro-batches per step

cfg.ddp.use_distributed_optimizer = True             # shard optimizer state over DP

# torchrun --nnodes 8 --nproc_per_node 8 ... this_script.py
if __name__ == "__main__":
    pretrain(config=cfg, forward_step_func=forward_step)
