# Memory-lean Trainer setup: gradient checkpointing + fp16 mixed precision.
# Drop this into your script in place of your current model/TrainingArguments creation.

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments

model_name = "your-org/your-model"

tokenizer = AutoTokenizer.from_pretrained(model_name)

# Load the weights directly in half precision: this halves the memory taken by the
# parameters (and by their gradients) compared with the default fp32 load, and the
# Trainer's fp16 mixed precision below takes care of loss scaling.
model = AutoModelForCausalLM.from_pretrained(model_name, torch_dtype=torch.float16)

# The KV cache is useless during training and conflicts with checkpointing.
model.config.use_cache = False

args = TrainingArguments(
    output_dir="out",
    # --- gradient checkpointing: recompute activations in backward instead of storing them
    gradient_checkpointing=True,
    gradient_checkpointing_kwargs={"use_reentrant": False},
    # --- mixed precision: fp16 autocast + dynamic loss scaling (works on V100/T4 as well as A100/H100)
    fp16=True,
    # --- smaller per-step batch, same effective batch via accumulation
    per_device_train_batch_size=1,
    gradient_accumulation_steps=16,
    # --- optimizer memory: fused AdamW; "adamw_bnb_8bit" cuts it further if bitsandbytes is installed
    optim="adamw_torch_fused",
    learning_rate=2e-5,
    num_train_epochs=1,
    logging_steps=10,
    save_strategy="steps",
    save_steps=500,
    report_to="none",
)

trainer = Trainer(
    model=model,
    args=args,
    train_dataset=train_dataset,   # your tokenized dataset
    processing_class=tokenizer,
)
trainer.train()

# If it still OOMs: shorten max sequence length in your tokenization, or move to
# DeepSpeed ZeRO / FSDP (TrainingArguments(deepspeed=..., fsdp=...)) to shard across GPUs.
