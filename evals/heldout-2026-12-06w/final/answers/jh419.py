"""Llama 3 70B pretraining on 64 x H100 (8 nodes x 8) with Megatron Bridge: parallel sizing.

How to choose
-------------
TP  (tensor parallel)   Keep it inside one NVLink node: TP <= 8. It all-reduces in every layer.
                        Llama 3 70B has 64 query heads and 8 KV groups, so TP must divide 8:
                        {1, 2, 4, 8}. TP=4 is the usual sweet spot for 70B on H100 (TP=8 spends
                        more time in communication per GEMM). Turn on sequence_parallel with TP > 1.
PP  (pipeline parallel) Add stages until weights + optimizer + activations fit. 80 layers, so PP
                        must divide 80: 2, 4, 5, 8, ... PP=4 gives 20 layers per stage.
VPP (virtual pipeline)  Interleaving shrinks the pipeline bubble. Layers per stage (20) must be a
                        multiple of VPP: 2, 4, 5, 10, 20. VPP=5 gives 4 layers per chunk (Bridge's
                        own recipe).
CP  (context parallel)  Only for long sequences. 8K: CP=1 or 2. 16K-32K: 2-4. 64K+: 8 or more.
                        Keep TP*CP within a node where you can (TP=4, CP=2 gives 8 GPUs, one node).
DP  (data parallel)     Whatever is left: DP = 64 / (TP * PP * CP). Use the distributed optimizer
                        so the optimizer states shard over DP.

Two sensible starting points on 64 GPUs at seq 8192:
  A) TP=4, PP=4, VPP=5, CP=2  ->  DP = 64 / 32 = 2   (Bridge's llama3_70b recipe, made for 32 GPUs)
  B) TP=4, PP=4, VPP=5, CP=1  ->  DP = 4             (8K usually fits without CP; more DP, less CP traffic)
Benchmark both for a few hundred steps and keep the faster one that doesn't OOM.

Rough memory per GPU for B (bf16 params, fp32 grads, fp32 Adam sharded by the distributed optimizer):
  model shard   = 70e9 / (TP*PP=16)             = 4.4e9 params
  params+grads  = 4.4e9 * (2 + 4) B             = ~26 GB
  optimizer     = 4.4e9 * 12 B / DP(4)          = ~13 GB
  -> ~39 GB + activations (8K, mbs=1, with SP): fits in 80 GB.
  For A the optimizer share doubles (DP=2: ~26 GB), while CP=2 halves the activations per GPU.
"""

from megatron.bridge.recipes.llama import llama3_70b_pretrain_config

cfg = llama3_70b_pretrain_config()  # TP4 / PP4 / VPP5 / CP2 / SP, seq 8192

# Parallel sizes live on the model provider (cfg.model), not on cfg.train / cfg.dist.
cfg.model.tensor_model_parallel_size = 4
cfg.model.sequence_parallel = True
cfg.model.pipeline_model_parallel_size = 4
cfg.model.virtual_pipeline_model_parallel_size = 5      # 80 / (4 * 5) = 4 layers per chunk
cfg.model.context_parallel_size = 2                     # option A; set 1 for option B
cfg.model.seq_length = 8192
cfg.dataset.seq_length = 8192

cfg.train.micro_batch_size = 1
cfg.train.global_batch_size = 512   # = mbs * DP * grad-accum; with DP=2 that's 256 micro-batches per step,
                                    # plenty (>> PP) to keep the pipeline bubble small

cfg.ddp.use_distributed_optimizer = True

# The recipe's TP communication overlap config is tuned for TP=4, mbs=1, seq 8192. If you change TP,
# micro-batch or sequence length, switch its tp_comm_overlap_cfg accordingly or disable the overlap.

# Launch: torchrun --nnodes 8 --nproc-per-node 8 ... (64 ranks). Check the log's reported
# data-parallel size (expect 2 for A, 4 for B) before the long run.
