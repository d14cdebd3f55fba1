# HF Trainer: gradient checkpointing + mixed precision to get out of OOM.
# Apply the memory savers roughly in this order; re-check after each one.

import torch
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments

model = AutoModelForCausalLM.from_pretrained("your-model")
model.config.use_cache = False  # KV cache is useless in training and conflicts with checkpointing

# bf16 needs an Ampere-or-newer GPU (A100, A10, RTX 30xx/40xx, H100).
# On V100/T4 use fp16=True instead. Never set both.
use_bf16 = torch.cuda.is_available() and torch.cuda.get_device_capability()[0] >= 8

args = TrainingArguments(
    output_dir="out",
    # 1) activation (gradient) checkpointing: recompute activations in backward. This is usually
    #    the biggest saving, for ~20-30% more compute.
    gradient_checkpointing=True,
    gradient_checkpointing_kwargs={"use_reentrant": False},  # recommended non-reentrant variant
    # 2) mixed precision: halves activation memory and speeds up matmuls
    bf16=use_bf16,
    fp16=torch.cuda.is_available() and not use_bf16,
    # 3) smaller micro-batch; keep the effective batch with accumulation (2 x 16 = 32 per device)
    per_device_train_batch_size=2,
    gradient_accumulation_steps=16,
    # 4) optional: a lighter optimizer state (needs bitsandbytes), else "adamw_torch_fused"
    optim="adamw_torch_fused",
    # optim="adamw_bnb_8bit",
    logging_steps=10,
)

trainer = Trainer(model=model, args=args, train_dataset=train_dataset)
trainer.train()

# Equivalent without the TrainingArguments flag:
#   model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
#
# Still OOM?
#   * shorter max sequence length / truncation in the tokenizer (activations scale with seq len)
#   * 8-bit Adam (optim="adamw_bnb_8bit") or LoRA via peft for large models
#   * multi-GPU: FSDP or DeepSpeed ZeRO through TrainingArguments(fsdp=... / deepspeed=...)
# Check peak usage with torch.cuda.max_memory_allocated() after a few steps.
