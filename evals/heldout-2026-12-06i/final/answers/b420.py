"""Llama 3 70B pretraining on 64 H100s with Megatron Bridge: how to pick TP / PP / CP.

Rules (in this order):
  1. TP: keep it inside one NVLink domain (one 8-GPU node). TP communicates on every
     layer, and TP across nodes is almost always a loss. For 70B dense: TP=4 (or 8).
     Turn on sequence_parallel with TP>1.
  2. PP: add pipeline stages until weights + optimizer + activations fit. 70B bf16
     weights are 140 GB, so TP=4 x PP=4 → ~8.75 GB weights per GPU. Use a virtual
     pipeline (interleaved 1F1B) to shrink the bubble: 80 layers / (PP=4 x VPP=5) =
     4 layers per virtual stage.
  3. CP: only for long sequences. <2K: none; 2K-8K: SP is usually enough; 8K-32K: CP=2;
     32K+: CP=4-8.
  4. DP: whatever is left: DP = world / (TP x PP x CP). GBS must be divisible by
     MBS x DP, and GBS/(MBS x DP) microbatches should be well above PP to fill the pipeline.

For 64 GPUs:
    seq 8192  → TP=4, PP=4, VPP=5, CP=2 → DP = 64 / (4*4*2) = 2
    seq 4096  → TP=4, PP=4, VPP=5, CP=1 → DP = 64 / (4*4*1) = 4
This is also the layout Bridge's own Llama 3 70B H100 recipe uses (TP=4, PP=4, VPP=5,
CP=2, SP on, for 32 GPUs). On 64 GPUs it simply doubles DP.

Run it: python -m torch.distributed.run ... (or your Slurm launcher) calling pretrain() with
llama3_70b_64gpu(seq_length=8192). Before the long run, check a memory estimate and a few
hundred steps of MFU. If it OOMs, add selective recompute before changing TP/PP.
"""

from megatron.bridge.recipes.llama import llama3_70b_pretrain_config
from megatron.bridge.training.config import ConfigContainer

WORLD = 64
GPUS_PER_NODE = 8


def llama3_70b_64gpu(seq_length: int = 8192, global_batch_size: int = 512) -> ConfigContainer:
    cfg = llama3_70b_pretrain_config()

    tp, pp, vpp = 4, 4, 5
    cp = 2 if seq_length >= 8192 else 1
    assert tp <= GPUS_PER_NODE, "keep TP inside the NVLink domain"
    assert 80 % (pp * vpp) == 0, "layers must split evenly over PP x VPP"
    assert WORLD % (tp * pp * cp) == 0
    dp = WORLD // (tp * pp * cp)

    cfg.model.tensor_model_parallel_size = tp
    cfg.model.pipeline_model_parallel_size = pp
    cfg.model.virtual_pipeline_model_parallel_size = vpp
    cfg.model.context_parallel_size = cp
    cfg.model.sequence_parallel = True

    cfg.model.seq_length = seq_length
    cfg.dataset.seq_length = seq_length

    cfg.train.micro_batch_size = 1
    cfg.train.global_batch_size = global_batch_size
    assert global_batch_size % (cfg.train.micro_batch_size * dp) == 0, (
        f"GBS {global_batch_size} must be divisible by MBS x DP = {cfg.train.micro_batch_size * dp}"
    )
    n_micro = global_batch_size // (cfg.train.micro_batch_size * dp)
    assert n_micro >= pp, "need at least PP microbatches per step to fill the pipeline"
    print(f"TP={tp} PP={pp} VPP={vpp} CP={cp} DP={dp} microbatches/step={n_micro}")
    return cfg
