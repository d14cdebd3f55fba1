# HF Trainer out of memory -> gradient checkpointing + bf16
# (A100/H100/L4 etc. support bf16; on V100/T4 use fp16=True instead.)
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments

model = AutoModelForCausalLM.from_pretrained("your/model", torch_dtype="auto")
model.config.use_cache = False          # KV cache is useless in training and clashes with checkpointing

args = TrainingArguments(
    output_dir="out",
    bf16=True,                                   # mixed precision
    gradient_checkpointing=True,                 # recompute activations in backward
    gradient_checkpointing_kwargs={"use_reentrant": False},
    per_device_train_batch_size=2,               # smaller micro-batch ...
    gradient_accumulation_steps=8,               # ... same effective batch (2*8*n_gpus)
    optim="adamw_torch_fused",                   # or "adamw_bnb_8bit" to shrink optimizer state
)

trainer = Trainer(model=model, args=args, train_dataset=train_ds)
trainer.train()

# Equivalent without the Trainer flag:
#   model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
# Expect ~20-30% slower steps with checkpointing; memory for activations drops a lot.
