# train.py: HF Trainer with gradient checkpointing + bf16 to get out of OOM.
# Each setting has a one-line "why" next to it.
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments

model_name = "your-org/your-model"
tok = AutoTokenizer.from_pretrained(model_name)
model = AutoModelForCausalLM.from_pretrained(
    model_name,
    torch_dtype=torch.bfloat16,        # load weights in bf16 (halves weight memory vs fp32)
)
model.config.use_cache = False         # KV cache is useless in training and conflicts with checkpointing

args = TrainingArguments(
    output_dir="out",
    bf16=True,                         # mixed precision (Ampere/Hopper); use fp16=True on V100/T4
    gradient_checkpointing=True,       # recompute activations in backward: big activation-memory cut, ~20-30% slower
    gradient_checkpointing_kwargs={"use_reentrant": False},  # non-reentrant variant: recommended by PyTorch, works with frozen inputs/PEFT
    per_device_train_batch_size=1,     # smaller micro-batch...
    gradient_accumulation_steps=16,    # ...same effective batch (1 x 16 x n_gpus)
    optim="adamw_torch_fused",         # or "adamw_bnb_8bit" / "paged_adamw_8bit" to shrink optimizer state
    learning_rate=2e-5,
    num_train_epochs=1,
    logging_steps=10,
)

# Equivalent manual switch if you're not using the Trainer flag:
#   model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
# With PEFT/LoRA and frozen embeddings plus reentrant checkpointing, also call
#   model.enable_input_require_grads()

trainer = Trainer(model=model, args=args, train_dataset=train_ds, processing_class=tok)  # train_ds: your tokenized dataset
trainer.train()

# Still OOM? In order: shorten max sequence length, use an 8-bit optimizer, then
# DeepSpeed ZeRO / FSDP via accelerate. Check with torch.cuda.max_memory_allocated().
