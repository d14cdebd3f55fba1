# Hugging Face Trainer: gradient checkpointing + mixed precision to get out of OOM.
#
# - gradient_checkpointing=True: activations are recomputed in backward instead of stored
#   (big memory win, ~20-30% slower steps).
# - bf16=True on Ampere or newer (A100, H100, RTX 30xx/40xx, A10...). On V100 / T4 (no bf16
#   support) use fp16=True instead. Never both.
# - Keep the *weights* in fp32 when loading for fp16 AMP; the Trainer autocasts the compute.
#   (Loading in torch.float16 and then setting fp16=True fails with
#   "Attempting to unscale FP16 gradients".) With bf16=True, loading in bfloat16 is fine too.
# - Shrink per_device_train_batch_size and recover the effective batch with
#   gradient_accumulation_steps.

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments

model_name = "your-model"
tokenizer = AutoTokenizer.from_pretrained(model_name)
# fp32 master weights; AMP autocasts the compute. (Recent transformers releases load the
# checkpoint's own dtype by default and spell this argument dtype=.)
model = AutoModelForCausalLM.from_pretrained(model_name, torch_dtype=torch.float32)

args = TrainingArguments(
    output_dir="out",
    per_device_train_batch_size=1,          # lower until it fits...
    gradient_accumulation_steps=16,         # ...and keep the effective batch (1 x 16 x n_gpus)
    gradient_checkpointing=True,
    gradient_checkpointing_kwargs={"use_reentrant": False},   # recommended non-reentrant variant
    bf16=True,                              # V100/T4: replace with fp16=True (not both)
    optim="adamw_torch_fused",              # or "adamw_bnb_8bit" / "adafactor" to cut optimizer memory
    learning_rate=2e-5,
    num_train_epochs=1,
    logging_steps=10,
)

# Generation models: the KV cache is useless during training and conflicts with checkpointing.
model.config.use_cache = False

train_dataset = ...  # your tokenized dataset
trainer = Trainer(model=model, args=args, train_dataset=train_dataset, processing_class=tokenizer)
trainer.train()

# Equivalent without the TrainingArguments flag:
#   model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
#
# Still OOM? In order of impact:
#   1. shorter max sequence length / packing-free batches (activation memory ~ batch x seq)
#   2. 8-bit or paged optimizers (optim="paged_adamw_8bit", needs bitsandbytes)
#   3. LoRA/QLoRA via peft instead of full fine-tuning
#   4. multi-GPU sharding (FSDP or DeepSpeed ZeRO via the Trainer's fsdp / deepspeed args)
