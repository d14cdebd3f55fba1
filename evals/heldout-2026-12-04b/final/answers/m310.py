# Gradient checkpointing + mixed precision with the Hugging Face Trainer.
#
# - gradient_checkpointing=True: activations are recomputed in backward instead of stored
#   (roughly 20-30% slower step, much lower activation memory). The Trainer calls
#   model.gradient_checkpointing_enable() for you; use_reentrant=False is the recommended
#   non-reentrant implementation and avoids the "none of the inputs have requires_grad" pitfall.
# - bf16=True: autocast to bfloat16 on Ampere or newer (A100/H100/RTX 30xx+). On older GPUs
#   (V100, T4) use fp16=True instead. Never set both.
# - If it still does not fit: lower per_device_train_batch_size and raise
#   gradient_accumulation_steps to keep the same effective batch size.

from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments

model_name = "your-org/your-model"
tokenizer = AutoTokenizer.from_pretrained(model_name)
model = AutoModelForCausalLM.from_pretrained(model_name)  # keep weights in fp32; bf16=True autocasts
model.config.use_cache = False  # the KV cache is useless in training and conflicts with checkpointing

args = TrainingArguments(
    output_dir="out",
    per_device_train_batch_size=2,
    gradient_accumulation_steps=8,          # effective batch 16 per device
    gradient_checkpointing=True,
    gradient_checkpointing_kwargs={"use_reentrant": False},
    bf16=True,                              # fp16=True on pre-Ampere GPUs
    optim="adamw_torch_fused",
    learning_rate=2e-5,
    num_train_epochs=1,
    logging_steps=10,
)

trainer = Trainer(
    model=model,
    args=args,
    train_dataset=train_dataset,   # your tokenized dataset
    processing_class=tokenizer,
)
trainer.train()

# Equivalent without the TrainingArguments flag:
#   model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
# Further memory savers if needed: optim="adafactor" or an 8-bit optimizer (bitsandbytes),
# and a shorter max sequence length in your tokenization.
