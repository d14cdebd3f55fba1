# train_lowmem.py -- HF Trainer with gradient checkpointing + mixed precision
# for a model that OOMs. Works on any recent CUDA GPU.

import torch
from transformers import (AutoModelForCausalLM, AutoTokenizer, Trainer,
                          TrainingArguments, DataCollatorForLanguageModeling)

MODEL = "your-org/your-model"

tok = AutoTokenizer.from_pretrained(MODEL)
if tok.pad_token is None:
    tok.pad_token = tok.eos_token

# Load the weights directly in half precision: this halves the memory the
# parameters (and their gradients) take compared with the fp32 default, which
# is usually the single biggest win before activations.
model = AutoModelForCausalLM.from_pretrained(MODEL, torch_dtype=torch.float16)

# Gradient checkpointing: recompute activations during backward instead of
# keeping them all. use_cache must be off while training with it.
model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
model.config.use_cache = False

args = TrainingArguments(
    output_dir="out",
    # Mixed precision: fp16 autocast + dynamic loss scaling. Runs on every
    # CUDA GPU (V100/T4 included), unlike bf16, which needs Ampere+.
    fp16=True,
    # Small per-device batch, same effective batch via accumulation.
    per_device_train_batch_size=1,
    gradient_accumulation_steps=16,
    learning_rate=2e-5,
    num_train_epochs=1,
    logging_steps=10,
    save_strategy="epoch",
    # Trainer also accepts gradient_checkpointing=True here; we already
    # enabled it on the model above.
)

trainer = Trainer(
    model=model,
    args=args,
    train_dataset=train_dataset,          # your tokenized dataset
    data_collator=DataCollatorForLanguageModeling(tok, mlm=False),
)
trainer.train()

# Still OOM? Lower max sequence length, use an 8-bit optimizer
# (optim="adamw_bnb_8bit"), LoRA via peft, or DeepSpeed ZeRO-2/3.
