"""Llama 3 70B pretraining on 64 x H100 (8 nodes x 8) with Megatron Bridge.

How to pick the sizes, in this order:

1. TP (tensor parallel): stays inside one node, because it all-reduces activations
   in every layer and needs NVLink. For 70B (hidden 8192, 64 heads, 8 KV groups)
   TP=4 is the sweet spot on H100; TP=8 if you need more memory headroom, never >8.
   Turn on sequence_parallel with TP>1 (shards LayerNorm/dropout activations).
2. PP (pipeline parallel): add it until the weights + optimizer states + activations
   fit. Llama 3 70B has 80 layers, so PP must divide 80 (2, 4, 5, 8, ...). PP=4 ->
   20 layers per stage. Use virtual pipeline (interleaving) to shrink the bubble:
   VPP=5 -> 4 layers per chunk (20 % 5 == 0).
3. CP (context parallel): only for long sequences. At seq 8192 CP=2 helps activation
   memory; at 4096 you can usually keep CP=1. For 32k-128k context, CP 4-8.
4. DP gets the rest: 64 / (TP*PP*CP). With TP4 x PP4 x CP2 -> DP=2.
   Bridge's own 32-GPU H100 recipe uses exactly TP=4, PP=4, VPP=5, CP=2; on 64 GPUs
   the extra factor of 2 goes to DP.

Then check: global_batch_size must be divisible by micro_batch_size * DP, and you
want num_microbatches (GBS / (MBS*DP)) >= a few x PP to keep the pipeline full.
Validate with a short run and watch memory + TFLOPs/GPU; if you have headroom,
try CP=1/DP=4 at seq 8192 and compare throughput.
"""
from megatron.bridge.recipes.llama import llama3_70b_pretrain_config

cfg = llama3_70b_pretrain_config()

cfg.model.tensor_model_parallel_size = 4
cfg.model.sequence_parallel = True
cfg.model.pipeline_model_parallel_size = 4
cfg.model.virtual_pipeline_model_parallel_size = 5
cfg.model.context_parallel_size = 2
# DP = 64 / (4 * 4 * 2) = 2 (derived, not set)

cfg.model.seq_length = 8192
cfg.dataset.seq_length = 8192
cfg.train.micro_batch_size = 1
cfg.train.global_batch_size = 128  # 128 / (1 * 2) = 64 microbatches per step, >> PP
