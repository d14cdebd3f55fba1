# Llama 3 70B pretraining on 64x H100 (8 nodes x 8 GPUs), Megatron Bridge.
# Parallelism overrides with the reasoning inline. Apply on top of the Llama 3 70B
# pretrain recipe: for k, v in OVERRIDES.items(): set on cfg.model / cfg.train.
#
# Model facts used: 80 layers, hidden 8192, 64 query heads, 8 KV groups (GQA).
import torch

OVERRIDES = {
    # --- Tensor parallel -------------------------------------------------------------
    # TP communicates on every layer -> keep it on NVLink, inside one 8-GPU node.
    # It must divide the 8 KV groups: 1/2/4/8. TP=4 keeps GEMMs large at hidden 8192.
    "model.tensor_model_parallel_size": 4,
    # With TP>1, shard LayerNorm/dropout activations across the TP group too.
    "model.sequence_parallel": True,

    # --- Pipeline parallel -----------------------------------------------------------
    # Add PP until the model fits. With TP*PP=16, each GPU owns ~4.4B params:
    # ~8.8 GB bf16 weights + ~17.5 GB fp32 grads + optimizer states sharded over DP.
    "model.pipeline_model_parallel_size": 4,
    "model.pipeline_dtype": torch.bfloat16,
    # Interleaved 1F1B: each rank holds several non-contiguous model chunks, which
    # shrinks the pipeline bubble roughly by this factor. 3 chunks per rank is a good
    # trade-off between bubble size and the extra P2P traffic of more chunks.
    "model.virtual_pipeline_model_parallel_size": 3,

    # --- Context parallel ------------------------------------------------------------
    # Only needed for long sequences (16K+). At 8K it adds ring-attention
    # communication for no memory need.
    "model.context_parallel_size": 1,
    "model.seq_length": 8192,

    # --- Data parallel (implicit) ------------------------------------------------------
    # DP = 64 / (TP 4 * PP 4 * CP 1) = 4. The distributed optimizer shards Adam states 4x.
    "train.micro_batch_size": 1,
    "train.global_batch_size": 512,   # 512 / (1 * 4) = 128 microbatches per step >> PP
}

# Sanity checks before launching
WORLD = 64
tp, pp, cp = 4, 4, 1
assert WORLD % (tp * pp * cp) == 0
dp = WORLD // (tp * pp * cp)
assert OVERRIDES["train.global_batch_size"] % (OVERRIDES["train.micro_batch_size"] * dp) == 0
assert 8 % tp == 0, "TP must divide the KV groups"
print(f"TP={tp} PP={pp} VPP={OVERRIDES['model.virtual_pipeline_model_parallel_size']} CP={cp} DP={dp}")
