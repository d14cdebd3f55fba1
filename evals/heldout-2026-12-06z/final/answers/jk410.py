# torch.compile tuning for a model that keeps recompiling.
#
# Step 0: find out WHY it recompiles:
#   TORCH_LOGS="recompiles" python train.py
# Each recompile prints the failing guard, e.g.
#   "tensor 'L['x']' size mismatch at index 1. expected 384, actual 411"
# -> a dynamic sequence length. Python scalars that change every step (lr, step)
#    also trigger recompiles; pass them as tensors.

import torch
import torch._dynamo

model = MyModel().cuda()

# Step 1: tell the compiler up front that shapes vary, so it generates one
# symbolic-shape graph instead of specializing per length and recompiling.
compiled = torch.compile(
    model,
    mode="default",          # start here; see notes below
    dynamic_shapes=True,     # symbolic shapes for all inputs -> no per-shape recompiles
    fullgraph=False,
)

# Alternative, more targeted: mark only the sequence dimension as dynamic
# before the first call.
# torch._dynamo.mark_dynamic(batch["input_ids"], 1)

# Step 2: only if you have a few *legitimate* shapes, raise the cache limit
# (default 8; after that Dynamo silently falls back to eager -> slow):
torch._dynamo.config.cache_size_limit = 16

# Step 3: modes
#   "default"          balanced, fast compile
#   "reduce-overhead"  CUDA graphs to cut launch overhead; wants static shapes,
#                      uses extra memory -> only after shapes are stable
#   "max-autotune"     autotuned GEMM/Triton kernels; long compile, best steady state
#
# Bucketing/padding sequence lengths to a few sizes (e.g. multiples of 128) is often
# faster than fully dynamic shapes.

for step, batch in enumerate(loader):
    loss = compiled(**batch).loss
    loss.backward()
    opt.step(); opt.zero_grad(set_to_none=True)
