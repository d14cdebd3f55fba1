"""Llama 3 70B pretraining on 64 H100s (8 nodes x 8) with Megatron Bridge: choosing TP / PP / CP.

How to size it (order matters):

1. TP (tensor parallel): all-reduce / reduce-scatter in every layer, so it must stay inside
   one NVLink domain: TP <= 8 on H100 nodes. Llama 3 70B (hidden 8192, 64 query heads,
   8 KV heads) splits cleanly at TP=4 or 8. TP=4 with sequence_parallel=True is the usual
   sweet spot. TP=8 makes each GEMM thinner (lower efficiency) but frees more memory.
2. PP (pipeline parallel): add it until weights + optimizer state + activations fit. PP crosses
   nodes cheaply (point-to-point activations only). 80 layers must split evenly: PP in
   {2, 4, 5, 8, 10, ...}. Use virtual pipeline (interleaving) to shrink the bubble; layers per
   PP stage must be divisible by VPP (PP=4 -> 20 layers/stage -> VPP 2, 4, 5, 10, 20).
3. CP (context parallel): only for long sequences. At 8K tokens CP=2 halves activation memory
   per GPU. At 4K you can usually keep CP=1; at 16K-64K+ raise it (CP=4, 8, ...).
4. DP gets the rest: DP = 64 / (TP * PP * CP). Use the distributed optimizer so optimizer
   state is sharded across DP.
5. Batch: global_batch_size must be divisible by DP * micro_batch_size, and the number of
   micro-batches per step (GBS / (DP * MBS)) should be several times PP, so the pipeline
   bubble stays small.

Bridge's own 64 x H100 BF16 perf recipe for this model uses TP=4, PP=4 (VPP=5), CP=2 at 8K
sequence length, i.e. DP=2, GBS=256, MBS=1 -> 128 micro-batches per step. That's a good
starting point; the 32-GPU `llama3_70b_pretrain_config` recipe has the same layout.
"""

from megatron.bridge.recipes.llama import llama3_70b_pretrain_config
from megatron.bridge.training.gpt_step import forward_step
from megatron.bridge.training.pretrain import pretrain

cfg = llama3_70b_pretrain_config()

# --- parallel layout (all of these live on cfg.model) ---------------------------------
cfg.model.tensor_model_parallel_size = 4          # within a node (NVLink)
cfg.model.sequence_parallel = True                # shards LayerNorm/dropout activations along TP
cfg.model.pipeline_model_parallel_size = 4        # 80 / 4 = 20 layers per stage
cfg.model.virtual_pipeline_model_parallel_size = 5  # 20 / 5 = 4 layers per virtual chunk
cfg.model.context_parallel_size = 2               # 8K sequence; use 1 at 4K, 4+ at 32K+
# DP = 64 / (4 * 4 * 2) = 2, derived from the world size (nothing to set)

# --- sequence / batch -------------------------------------------------------------------
cfg.model.seq_length = 8192
cfg.dataset.seq_length = 8192
cfg.train.micro_batch_size = 1
cfg.train.global_batch_size = 256                 # 256 / (DP 2 * MBS 1) = 128 micro-batches >> PP

# --- optimizer sharding across DP (the recipe already sets both; keep them in sync) ------
cfg.ddp.use_distributed_optimizer = True
cfg.optimizer.use_distributed_optimizer = True

if __name__ == "__main__":
    pretrain(config=cfg, forward_step_func=forward_step)

# Variants worth benchmarking (one change at a time, compare tokens/s/GPU and peak memory):
#   * 4K sequences:  TP=4, PP=4, VPP=5, CP=1  -> DP=4
#   * tighter memory: TP=8, PP=4, VPP=5, CP=1 -> DP=2 (TP=8 still inside one node)
#   * 16K+ sequences: keep TP=4, PP=4 and raise CP (e.g. CP=4 -> DP=1), or add nodes
# Rules that make a layout invalid: TP > 8 (spans nodes), PP not dividing 80, layers per stage
# not divisible by VPP, GBS not divisible by DP * MBS.
# Before launching a new layout, check the memory estimate (weights + grads + distributed-
# optimizer state per GPU, plus activations for MBS x seq_length / (TP * CP)).
