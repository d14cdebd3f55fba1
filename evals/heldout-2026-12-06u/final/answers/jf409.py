"""
torch.compile keeps recompiling -> how to find out why, and how to stop it.

Run your script once with the recompile log on; it tells you exactly which guard failed:

    TORCH_LOGS=recompiles python train.py
    # more detail:  TORCH_LOGS=recompiles_verbose,guards   or   tlparse on a TORCH_TRACE dump

Typical reasons and the fix for each are below. Fix the guard first; raising the recompile
limit only hides the problem (and once the limit is hit, Dynamo falls back to eager for that
frame, which is often the "slow" you are seeing).
"""
import torch
import torch._dynamo

model = MyModel().cuda()          # your model

# 1) Shapes that change (last batch smaller, variable sequence length, ...)
#    Default dynamic=None: the first compile is static, the first shape change triggers ONE
#    recompile with dynamic shapes ("automatic dynamic"). Do NOT pass dynamic=False -- that
#    forces a specialized graph for every new size.
#    If you already know which dim varies, mark it before the first call so the very first
#    compile is already dynamic on that dim:
def mark(batch):
    torch._dynamo.mark_dynamic(batch["input_ids"], 1)   # sequence dim varies
    return batch
#    Alternatives: torch.compile(model, dynamic=True) (dynamic everywhere; can be slower
#    kernels), or pad/bucket sequence lengths to a few fixed sizes (e.g. multiples of 128)
#    and drop_last=True in the DataLoader so the batch dim never changes.

# 2) Python scalars that change every step (lr, step counter, dropout p, a float arg)
#    Ints/floats are guarded on their exact value -> a recompile per new value.
#    Pass them as tensors, or keep them out of the compiled region. For optimizers, wrap the LR:
#    torch.optim.AdamW(params, lr=torch.tensor(3e-4))  and compile the step separately if at all.

# 3) Module attribute / global changes, train() <-> eval() switches, requires_grad flips,
#    different dtypes or devices between calls: each is a guard. Keep them constant inside
#    the compiled function, or compile the train and eval paths separately.

# 4) Graph breaks are not recompiles, but they cost speed: find them with
#    TORCH_LOGS=graph_breaks  (or torch._dynamo.explain(model)(example_batch)),
#    and try fullgraph=True to turn them into errors while you fix them.

compiled = torch.compile(
    model,
    mode="default",   # see below
    dynamic=None,     # default; see (1)
)

# Modes:
#   "default"          good compile time / speed balance; start here.
#   "reduce-overhead"  uses CUDA graphs (torch's cudagraph trees) to cut Python/launch overhead;
#                      helps small batches; costs extra memory, and every new shape records a
#                      new graph -> only worth it once shapes are static or bucketed.
#   "max-autotune"     autotunes Triton matmul/conv configs (+ CUDA graphs); long compile,
#                      best for long-running static-shape jobs.
#   "max-autotune-no-cudagraphs" autotuning without the graphs.

# 5) Only after the guards are fixed, if a few legitimate variants remain, raise the limit:
torch._dynamo.config.recompile_limit = 16   # (older PyTorch: torch._dynamo.config.cache_size_limit)

# 6) Measure steady state: exclude the first iterations (compile) and each recompile from the
#    timing, call torch.cuda.synchronize() before reading the clock, and compare to eager.
