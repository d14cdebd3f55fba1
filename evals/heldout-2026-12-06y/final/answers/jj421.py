# train.py: HF Trainer with gradient checkpointing + mixed precision to get past OOM.
#
# OOM checklist (roughly in order of impact):
#   1. gradient_checkpointing=True   -> recompute activations in backward instead of storing them
#   2. bf16=True (Ampere/Hopper: A100, H100, RTX 30xx/40xx) or fp16=True (V100, T4, older):
#      never both at once
#   3. smaller per_device_train_batch_size + gradient_accumulation_steps to keep the effective batch
#   4. shorter max sequence length / packing, if your data allows
#   5. lighter optimizer state (adamw 8-bit via bitsandbytes) or DeepSpeed/FSDP if still short
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments

model_name = "your-org/your-model"
tokenizer = AutoTokenizer.from_pretrained(model_name)

# Keep weights in fp32 for AMP: fp16=True on fp16-loaded weights fails with
# "Attempting to unscale FP16 gradients". (Loading in bf16 + bf16=True also works and saves
# memory, at some precision cost for the optimizer update.)
model = AutoModelForCausalLM.from_pretrained(model_name, torch_dtype=torch.float32)
model.config.use_cache = False  # KV cache is useless in training and conflicts with checkpointing

use_bf16 = torch.cuda.is_available() and torch.cuda.is_bf16_supported()

args = TrainingArguments(
    output_dir="out",
    per_device_train_batch_size=2,        # lower this first when you OOM...
    gradient_accumulation_steps=16,       # ...and raise this to keep the same effective batch
    gradient_checkpointing=True,
    gradient_checkpointing_kwargs={"use_reentrant": False},  # recommended non-reentrant variant
    bf16=use_bf16,                        # Ampere or newer
    fp16=not use_bf16,                    # fallback for V100/T4-class GPUs
    optim="adamw_torch_fused",            # or "adamw_bnb_8bit" to shrink optimizer state
    learning_rate=2e-5,
    num_train_epochs=1,
    logging_steps=10,
    save_strategy="epoch",
    report_to="none",
)

trainer = Trainer(
    model=model,
    args=args,
    train_dataset=train_dataset,   # your tokenized dataset
)
trainer.train()

# Equivalent without the TrainingArguments flag (transformers 4.x name; check your version's docs):
#   model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
# Expect ~20-30% slower steps with checkpointing; that's the price for the activation memory.
# Check what you actually saved: torch.cuda.max_memory_allocated() after a few steps.
