#!/usr/bin/env python3
"""write_ds_config.py: generate ds_config.json for a 7B fine-tune on 4 x A100 40GB.

Decision: ZeRO stage 2.
  * ZeRO-1 shards optimizer states; ZeRO-2 also shards gradients; ZeRO-3 also shards parameters.
  * Memory per GPU (mixed-precision AdamW ~16 B/param, 7B params):
      ZeRO-2 on its own: 14 GB bf16 weights (replicated) + 3.5 GB grad shard + 21 GB optimizer shard
      ~= 38.5 GB + activations -> does not fit in 40 GB.
  * So we keep ZeRO-2's cheaper communication (no per-layer parameter all-gathers as in ZeRO-3) and
    move the 14 GB of replicated bf16 weights to CPU with `offload_param`. That leaves grad and
    optimizer shards (~24.5 GB) plus activations on each GPU.
  * If it is still tight, enable gradient checkpointing in the model or lower the micro-batch.

Run:  python write_ds_config.py && deepspeed --num_gpus 4 train.py --deepspeed ds_config.json
"""
import json

NUM_GPUS = 4
MICRO_BATCH = 1
GLOBAL_BATCH = 64

config = {
    "bf16": {"enabled": True},                      # A100: bf16, no loss scaling needed
    "zero_optimization": {
        "stage": 2,
        "offload_param": {"device": "cpu", "pin_memory": True},
        "overlap_comm": True,
        "contiguous_gradients": True,
        "reduce_scatter": True,
        "reduce_bucket_size": int(5e8),
        "allgather_bucket_size": int(5e8),
    },
    "train_micro_batch_size_per_gpu": MICRO_BATCH,
    "gradient_accumulation_steps": GLOBAL_BATCH // (MICRO_BATCH * NUM_GPUS),
    "gradient_clipping": 1.0,
}

assert config["train_micro_batch_size_per_gpu"] * config["gradient_accumulation_steps"] * NUM_GPUS == GLOBAL_BATCH
assert not ("fp16" in config and config["bf16"]["enabled"]), "pick one of bf16/fp16"

with open("ds_config.json", "w") as f:
    json.dump(config, f, indent=2)
print(json.dumps(config, indent=2))
