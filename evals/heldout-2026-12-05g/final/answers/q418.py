"""ds_setup.py: DeepSpeed config for full fine-tuning a 7B model on 4x A100 40GB.

Decision: ZeRO stage 2, no offload.

Why not stage 3: ZeRO-2 already partitions the optimizer states, the gradients
and the 16-bit parameters across the data-parallel ranks. The per-GPU model
state is therefore ~16 B/param * 7e9 / 4 ~= 28 GB, which leaves room for
activations (with gradient checkpointing) on a 40 GB card. ZeRO-3 adds parameter
all-gathers in every forward and backward (more communication, slower steps)
and only pays off when the stage-2 footprint doesn't fit.
Why not offload: CPU Adam and PCIe traffic every step cost a lot of throughput
and aren't needed when the model states already fit.

Also written out as ds_config.json, so the same file works with
`deepspeed train.py --deepspeed_config ds_config.json` or with the HF Trainer
(`TrainingArguments(deepspeed="ds_config.json")`).
"""

import json

import deepspeed
import torch

DS_CONFIG = {
    "train_micro_batch_size_per_gpu": 1,
    "gradient_accumulation_steps": 16,      # global batch = 1 * 16 * 4 GPUs = 64
    "gradient_clipping": 1.0,
    "bf16": {"enabled": True},              # A100: bf16, no loss scaling needed
    "optimizer": {
        "type": "AdamW",
        "params": {"lr": 2e-5, "betas": [0.9, 0.999], "eps": 1e-8, "weight_decay": 0.0},
    },
    "zero_optimization": {
        "stage": 2,
        "overlap_comm": True,               # overlap gradient reduce-scatter with backward
        "contiguous_gradients": True,       # copy grads into a contiguous buffer: less fragmentation
        "allgather_bucket_size": 5e7,
        "reduce_bucket_size": 5e7,          # smaller buckets = smaller comm buffers on 40 GB cards
        "reduce_scatter": True,
    },
    "steps_per_print": 50,
}


def write_config(path: str = "ds_config.json") -> None:
    with open(path, "w") as f:
        json.dump(DS_CONFIG, f, indent=2)


def build(model: torch.nn.Module):
    # Activations are the remaining variable: checkpoint them.
    if hasattr(model, "gradient_checkpointing_enable"):
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    engine, optimizer, _, scheduler = deepspeed.initialize(
        model=model,
        model_parameters=[p for p in model.parameters() if p.requires_grad],
        config=DS_CONFIG,
    )
    return engine, optimizer, scheduler


if __name__ == "__main__":
    write_config()
    print(json.dumps(DS_CONFIG, indent=2))
