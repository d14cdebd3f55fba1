#!/usr/bin/env python3
"""Write ds_config.json for fine-tuning a 7B model on 4x A100 40GB.

Choice: ZeRO stage 3.
  - ZeRO-2 shards optimizer states and gradients but keeps a full bf16 copy of
    the weights on every GPU: 14 GB weights + 3.5 GB grads + ~21 GB Adam states
    per GPU = ~38.5 GB before activations. Does not fit on 40 GB.
  - ZeRO-3 also shards the parameters: ~3.5 + 3.5 + 21 = ~28 GB per GPU, leaving
    room for activations (with gradient checkpointing). Costs extra all-gathers
    of the weights in forward and backward.
  - If stage 3 is still tight, add CPU optimizer offload (see OFFLOAD below).

Run:  python make_ds_config.py && deepspeed --num_gpus 4 train.py --deepspeed ds_config.json
"""
import json

OFFLOAD = False  # set True to move Adam states to pinned CPU memory

config = {
    "bf16": {"enabled": True},           # A100 has native bf16; no loss scaler needed
    "stage": 3,
    "zero_optimization": {
        "overlap_comm": True,
        "contiguous_gradients": True,
        "reduce_bucket_size": 5e8,
        "stage3_prefetch_bucket_size": 5e8,
        "stage3_param_persistence_threshold": 1e6,
        "stage3_gather_16bit_weights_on_model_save": True,
    },
    "gradient_accumulation_steps": 8,
    "gradient_clipping": 1.0,
    "train_micro_batch_size_per_gpu": 2,
    "train_batch_size": 2 * 8 * 4,       # micro * accumulation * GPUs
    "steps_per_print": 50,
}

if OFFLOAD:
    config["zero_optimization"]["offload_optimizer"] = {"device": "cpu", "pin_memory": True}

with open("ds_config.json", "w") as f:
    json.dump(config, f, indent=2)

print(json.dumps(config, indent=2))
