#!/usr/bin/env bash
# make_ds_config.sh — writes ds_config.json for the 7B fine-tune on 4x A100 40GB.
#
# Decision: ZeRO stage 2, with parameters and optimizer states offloaded to CPU.
#   - Stage 2 shards optimizer states + gradients across the 4 ranks; stage 3 additionally
#     shards the parameters themselves, at the price of an all-gather per layer in forward
#     and backward.
#   - Model states for a full bf16/Adam fine-tune are ~16 B/param = ~112 GB. Under plain
#     stage 2 each GPU still holds the full 14 GB of bf16 weights + 3.5 GB grads + 21 GB of
#     Adam state = ~38.5 GB -> OOM on 40 GB once activations show up.
#   - Offloading the parameters (offload_param) and the optimizer (offload_optimizer) to CPU
#     takes the two biggest items off the GPU while keeping stage-2 style communication
#     (no per-layer parameter all-gather), which is the cheaper path inside one node.
#   - If you later move to a multi-node setup, revisit stage 3.
#
# Host needs ~120 GB of free RAM for the offloaded states; pinned memory counts against
# `ulimit -l` (set pin_memory=false if init fails with a memlock error).
set -euo pipefail

MICRO_BS=${MICRO_BS:-2}
GRAD_ACC=${GRAD_ACC:-8}

cat > ds_config.json <<JSON
{
  "train_micro_batch_size_per_gpu": ${MICRO_BS},
  "gradient_accumulation_steps": ${GRAD_ACC},
  "gradient_clipping": 1.0,
  "bf16": { "enabled": true },
  "zero_optimization": {
    "stage": 2,
    "overlap_comm": true,
    "contiguous_gradients": true,
    "allgather_bucket_size": 5e8,
    "reduce_bucket_size": 5e8,
    "offload_param":     { "device": "cpu", "pin_memory": true },
    "offload_optimizer": { "device": "cpu", "pin_memory": true }
  },
  "optimizer": {
    "type": "AdamW",
    "params": { "lr": 2e-5, "betas": [0.9, 0.95], "eps": 1e-8, "weight_decay": 0.0 }
  }
}
JSON

echo "wrote ds_config.json (ZeRO-2, param+optimizer offload, micro_bs=${MICRO_BS}, grad_acc=${GRAD_ACC})"
# launch:
#   deepspeed --num_gpus 4 train.py --deepspeed ds_config.json --bf16 --gradient_checkpointing
