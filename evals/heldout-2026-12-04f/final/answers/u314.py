# train.py -- HF Trainer with gradient checkpointing + bf16 mixed precision
#
# Gradient checkpointing: activations are not kept for backward, they are recomputed layer by
# layer. Big activation-memory saving for ~20-30% more compute.
# Mixed precision: matmuls and activations in bf16 (needs Ampere+), fp32 master weights kept
# by the optimizer.

from transformers import AutoModelForCausalLM, Trainer, TrainingArguments

model = AutoModelForCausalLM.from_pretrained("your-model")
model.config.use_cache = False          # KV cache is useless in training and conflicts with checkpointing

args = TrainingArguments(
    output_dir="./out",
    per_device_train_batch_size=2,      # smaller micro-batch ...
    gradient_accumulation_steps=8,      # ... same effective batch
    gradient_checkpointing=True,
    gradient_checkpointing_kwargs={"use_reentrant": False},
    mixed_precision="bf16",             # "fp16" on pre-Ampere GPUs
    logging_steps=10,
)

trainer = Trainer(
    model=model,
    args=args,
    train_dataset=train_dataset,
    data_collator=data_collator,
)
trainer.train()

# If it still OOMs: lower per_device_train_batch_size further, shorten max sequence length,
# try optim="adafactor" or an 8-bit optimizer, or move to LoRA / DeepSpeed ZeRO.
