# Hugging Face Trainer: gradient checkpointing + mixed precision to fix OOM
import torch
from transformers import AutoModelForCausalLM, TrainingArguments, Trainer

# Load the weights directly in half precision: halves the parameter memory
# right away, and fp16 mixed precision below then runs everything in fp16.
model = AutoModelForCausalLM.from_pretrained(
    "your-model-id",
    torch_dtype=torch.float16,
)
model.config.use_cache = False          # KV cache is useless in training and conflicts with checkpointing

args = TrainingArguments(
    output_dir="./out",
    per_device_train_batch_size=2,      # reduce per-GPU batch...
    gradient_accumulation_steps=16,     # ...keep effective batch = 2 * 16 * n_gpus
    gradient_checkpointing=True,        # recompute activations in backward (~30% slower, big memory win)
    gradient_checkpointing_kwargs={"use_reentrant": False},
    fp16=True,                          # AMP with loss scaling; works on every CUDA GPU incl. V100/T4
    learning_rate=2e-5,
    logging_steps=10,
)

trainer = Trainer(model=model, args=args, train_dataset=train_dataset)
trainer.train()

# If you are on Ampere or newer (A100/H100/RTX 30xx+), bf16=True instead of fp16=True
# avoids loss-scaling issues. Use one or the other, not both.
