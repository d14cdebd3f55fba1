"""Parallel layout for Llama 3 70B pretraining on 64 H100 (8 nodes x 8) with Megatron Bridge.

Reasoning
- TP: keep it inside a node (NVLink). 70B hidden 8192 / 64 heads -> TP=4 or TP=8 both divide cleanly.
  TP=4 has less comm per layer; TP=8 frees more memory. Never span TP across nodes.
- PP: add pipeline stages until the model states fit. 80 layers -> PP=4 (20 layers/stage) with
  virtual pipeline (VP=5 -> 4 layers per chunk) to shrink the bubble.
- CP: only for long sequences (>= 16k-32k); at seq 8192 keep CP=1.
- DP: whatever is left: 64 / (TP*PP*CP). TP=4, PP=4 -> DP=4. Use the distributed optimizer so Adam states
  are sharded over DP.
- Check the global batch: GBS must be divisible by micro_batch * DP; with PP, num_microbatches >= PP (ideally
  several times PP) to keep the bubble small.
Validate with a memory estimate / a short run, and compare TP4xPP4 vs TP8xPP2(VP) on throughput.
"""
from megatron.bridge.recipes.llama.h100.llama3 import llama3_70b_pretrain_32gpu_h100_bf16_config as base_recipe  # override its layout below

cfg = base_recipe()

cfg.model.tensor_model_parallel_size = 4
cfg.model.pipeline_model_parallel_size = 4
cfg.model.virtual_pipeline_model_parallel_size = 5
cfg.model.context_parallel_size = 1          # raise to 2-4 only for 32k+ sequences
cfg.model.sequence_parallel = True           # pairs with TP>1, cuts activation memory

cfg.ddp.use_distributed_optimizer = True

cfg.train.micro_batch_size = 1
cfg.train.global_batch_size = 512            # 512 / (1 * DP=4) = 128 microbatches per step >> PP
cfg.dataset.seq_length = 8192
cfg.model.seq_length = 8192
