# OOM with the HF Trainer -> gradient checkpointing + mixed precision.
# Drop-in version of a typical fine-tuning script with the memory savers turned on.
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments

model_name = "your-org/your-model"

tokenizer = AutoTokenizer.from_pretrained(model_name)

# Load the weights directly in half precision: this alone halves the memory of the
# weights, gradients and optimizer-state copies compared to the fp32 default.
# torch.float16 works on every CUDA GPU (V100, T4, A100, ...).
model = AutoModelForCausalLM.from_pretrained(model_name, torch_dtype=torch.float16)

# Not needed with checkpointing, and the Trainer would warn about it anyway.
model.config.use_cache = False

args = TrainingArguments(
    output_dir="out",
    # --- memory ---
    gradient_checkpointing=True,                              # recompute activations in backward (~20-30% slower)
    gradient_checkpointing_kwargs={"use_reentrant": False},   # recommended non-reentrant implementation
    per_device_train_batch_size=1,                            # smaller per-step batch ...
    gradient_accumulation_steps=16,                           # ... same effective batch (1 x 16 x n_gpus)
    # --- mixed precision ---
    fp16=True,                                                # AMP with loss scaling; matches the fp16 weights above
    # --- the rest as before ---
    learning_rate=2e-5,
    num_train_epochs=1,
    logging_steps=10,
    save_strategy="epoch",
)

trainer = Trainer(
    model=model,
    args=args,
    train_dataset=train_dataset,   # your tokenized dataset
    processing_class=tokenizer,
)
trainer.train()

# If it still OOMs:
#  - shorten max sequence length / pack examples, it scales activation memory directly
#  - optim="adamw_bnb_8bit" (bitsandbytes) or optim="adafactor" to shrink optimizer state
#  - use LoRA (peft) instead of full fine-tuning
#  - multi-GPU: FSDP or DeepSpeed ZeRO via TrainingArguments(fsdp=..., deepspeed=...)
