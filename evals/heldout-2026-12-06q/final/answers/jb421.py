# HF Trainer: gradient checkpointing + bf16 to get out of OOM
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments

model = AutoModelForCausalLM.from_pretrained("your/model", torch_dtype="auto")

args = TrainingArguments(
    output_dir="out",
    bf16=True,                         # Ampere/Hopper; use fp16=True on V100/T4 instead (not both)
    gradient_checkpointing=True,       # recompute activations in backward: big activation savings, ~20-30% slower
    gradient_checkpointing_kwargs={"use_reentrant": False},  # recommended non-reentrant checkpointing
    per_device_train_batch_size=1,     # shrink the micro batch...
    gradient_accumulation_steps=16,    # ...and keep the effective batch via accumulation
    optim="adamw_torch_fused",         # or "adafactor" / "adamw_bnb_8bit" to shrink optimizer state
)
# Equivalent manual switch: model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
# Trainer sets model.config.use_cache=False for you when checkpointing (cache is useless in training).

trainer = Trainer(model=model, args=args, train_dataset=train_ds)
trainer.train()

# Still OOM? in order: shorter max_length / packing off, 8-bit optimizer, LoRA (peft),
# then sharding (FSDP/DeepSpeed via accelerate).
