# Memory-saving setup for the Hugging Face Trainer: gradient checkpointing + bf16 mixed precision.
import torch
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments

# Load fp32 weights: AMP keeps fp32 master weights and autocasts the matmuls (don't load in fp16 with fp16=True).
model = AutoModelForCausalLM.from_pretrained("your/model", torch_dtype=torch.float32)
model.config.use_cache = False   # KV cache is useless in training and conflicts with checkpointing

# bf16 needs an Ampere-or-newer GPU (A100, A10, RTX 30xx/40xx, H100). On V100/T4 use fp16 instead.
# (Check the compute capability: torch.cuda.is_bf16_supported() can return True via emulation on older cards.)
use_bf16 = torch.cuda.is_available() and torch.cuda.get_device_capability()[0] >= 8

args = TrainingArguments(
    output_dir="out",
    # --- activations: recompute in backward instead of storing them ---
    gradient_checkpointing=True,
    gradient_checkpointing_kwargs={"use_reentrant": False},   # recommended non-reentrant variant
    # --- mixed precision (pick exactly one) ---
    bf16=use_bf16,
    fp16=not use_bf16,
    # --- smaller per-step footprint, same effective batch (2 x 16 = 32 per device) ---
    per_device_train_batch_size=2,
    gradient_accumulation_steps=16,
    # --- optional extra savings ---
    optim="adamw_torch_fused",        # or "adamw_bnb_8bit" (bitsandbytes) / "adafactor" to shrink optimizer state
    learning_rate=2e-5,
    num_train_epochs=1,
    logging_steps=10,
)

trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds)
trainer.train()

# Equivalent without the TrainingArguments flag:
#   model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
#
# Notes
# - Mixed precision speeds things up and cuts activation memory, but the fp32 master weights and
#   Adam state remain; if the optimizer state is what doesn't fit, an 8-bit optimizer, LoRA/PEFT, or
#   DeepSpeed/FSDP sharding helps more than precision flags.
# - Checkpointing costs roughly one extra forward pass (~20-30% slower steps).
# - If you freeze the embeddings (e.g. PEFT) and use the reentrant variant, call
#   model.enable_input_require_grads(); with use_reentrant=False that's not needed.
