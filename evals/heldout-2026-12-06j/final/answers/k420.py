"""Llama 3 70B pretraining on 64 x H100 with Megatron Bridge: parallelism sizing.

How the numbers are chosen
--------------------------
* TP (tensor parallel): keep it inside one NVLink domain (<= 8 on an 8-GPU H100 node).
  TP=4 gives 16 query heads / 2 KV heads per rank and big enough GEMMs; TP=8 also works,
  but never let TP span nodes (TP all-reduces/all-gathers every layer).
  sequence_parallel=True whenever TP > 1.
* PP (pipeline parallel): add stages until the model state fits. 80 layers / PP=4 = 20
  layers per stage. With interleaving (VPP), layers-per-stage must be divisible by VPP:
  20 / 5 = 4 layers per virtual chunk. VPP=5 cuts the pipeline bubble ~5x vs plain 1F1B.
* CP (context parallel): for long sequences. At 8K, CP=2 halves activation memory per
  GPU; TP(4) x CP(2) = 8 keeps both inside one node. Go to CP=4-8 only at 32K+.
* DP takes the rest: DP = 64 / (TP * PP * CP) = 64 / (4 * 4 * 2) = 2.
  The distributed optimizer shards optimizer state over DP x CP ranks.

This matches the parallel layout of Bridge's llama3_70b_pretrain_config (the 32-GPU H100
recipe: TP=4, PP=4, VPP=5, CP=2, SP=True). On 64 GPUs the same layout simply gets DP=2.
Global batch 512 / (micro 1 x DP 2) = 256 microbatches per step (a multiple of PP=4).

Alternatives
------------
* TP=8, PP=4, VPP=5, CP=1 -> DP=2: more TP comm, no CP; fine if you stay at <= 8K and want
  to avoid CP. (Drop the recipe's TP=4 comm-overlap buffer config if you change TP.)
* Sequence 16K+: keep TP=4, PP=4 and raise CP (4 at 32K); DP shrinks accordingly.

Validate with 20-50 iterations: per-stage peak memory (first/last stage are tightest),
step time / MFU, and check the pipeline bubble in an nsys timeline.
"""

import torch

from megatron.bridge.recipes.llama import llama3_70b_pretrain_config
from megatron.bridge.training.config import ConfigContainer
from megatron.bridge.training.gpt_step import forward_step
from megatron.bridge.training.pretrain import pretrain

WORLD_SIZE = 64


def llama3_70b_64gpu_config() -> ConfigContainer:
    cfg = llama3_70b_pretrain_config()

    tp, pp, vpp, cp = 4, 4, 5, 2
    num_layers = 80
    assert tp <= 8, "keep TP inside one 8-GPU node"
    assert num_layers % pp == 0 and (num_layers // pp) % vpp == 0, "layers/stage must divide by VPP"
    assert WORLD_SIZE % (tp * pp * cp) == 0
    dp = WORLD_SIZE // (tp * pp * cp)  # = 2

    cfg.model.tensor_model_parallel_size = tp
    cfg.model.pipeline_model_parallel_size = pp
    cfg.model.virtual_pipeline_model_parallel_size = vpp
    cfg.model.context_parallel_size = cp
    cfg.model.sequence_parallel = True
    cfg.model.pipeline_dtype = torch.bfloat16

    cfg.model.seq_length = 8192
    cfg.dataset.seq_length = 8192

    cfg.train.micro_batch_size = 1
    cfg.train.global_batch_size = 512
    assert cfg.train.global_batch_size % (cfg.train.micro_batch_size * dp) == 0
    return cfg


if __name__ == "__main__":
    # torchrun --nnodes 8 --nproc-per-node 8 ... this_file.py
    pretrain(config=llama3_70b_64gpu_config(), forward_step_func=forward_step)
