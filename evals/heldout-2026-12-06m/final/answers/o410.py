"""
Diagnosing and fixing torch.compile recompiles (plain PyTorch).

Work through it top to bottom: (1) find the guard that fails, (2) remove the
variability or declare it dynamic, (3) pick a mode, (4) touch the recompile
limit only if a bounded number of variants is really expected.

Run the first pass with:
    TORCH_LOGS="recompiles" python this_script.py
(add "graph_breaks" and "guards" for more detail). Every recompile logs the
guard that failed, e.g. "size mismatch at index 1. expected 512, actual 497"
or a changed Python constant.
"""
import time

import torch
import torch._dynamo as dynamo

model = MyModel().cuda()  # your model


# --- 1. Graph breaks: each break makes a separate frame with its own guards -----
# explain() reports graph count, break count and the reason for each break.
sample = next(iter(loader)).cuda()
exp = dynamo.explain(model)(sample)
print("graphs:", exp.graph_count, "breaks:", exp.graph_break_count)
for reason in exp.break_reasons:
    print(reason)
# Typical fixes: drop .item()/print()/numpy in forward, and replace data-dependent
# Python `if`s with torch.where. Keep changing Python scalars (step, lr, p) out of
# the compiled function, or pass them as 0-d tensors so a new value is data, not a guard.


# --- 2. Shape-driven recompiles ------------------------------------------------
# Option A (best kernels): bucket/pad to a few fixed lengths -> a few static graphs.
def pad_to_bucket(x, multiple=64, pad_value=0):
    seq = x.shape[1]
    target = ((seq + multiple - 1) // multiple) * multiple
    return torch.nn.functional.pad(x, (0, target - seq), value=pad_value)

# Option B: declare the varying dim dynamic BEFORE the first compiled call.
#   dynamo.mark_dynamic(batch, 1)           # seq dim is symbolic from the start
# Option C: compile with dynamic=None (default). Dynamo automatically recompiles
#   once with a symbolic size after it sees the dim change. dynamic=True makes
#   everything symbolic up front. dynamic=False always specializes, so every new
#   size is a new compile. Don't use it with varying shapes.
compiled = torch.compile(model, dynamic=None)


# --- 3. Modes -------------------------------------------------------------------
# "default"                    : good balance, fast compile; start here.
# "reduce-overhead"            : adds CUDA graphs to cut launch overhead for small
#                                batches; costs memory, and needs stable shapes
#                                (each new shape is another recording). Use it
#                                after shapes are bucketed.
# "max-autotune"               : benchmarks matmul/conv configs; long compile; best
#                                for steady-state static shapes.
# "max-autotune-no-cudagraphs" : the same without CUDA graphs.
# compiled = torch.compile(model, mode="reduce-overhead")   # after bucketing


# --- 4. Recompile limit (last resort) --------------------------------------------
# Default is 8 per frame (torch._dynamo.config.recompile_limit; older releases call
# it cache_size_limit). When a frame exceeds it, Dynamo falls back to eager for that
# frame, which looks like "compile made it slow". Raise it only when the number of
# variants is known and bounded (e.g. 10 buckets):
# dynamo.config.recompile_limit = 16


# --- 5. Measure correctly ----------------------------------------------------------
def timed(fn, x, iters=50, warmup=10):
    for _ in range(warmup):          # includes compilation; don't time it
        fn(x)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(iters):
        fn(x)
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / iters

x = pad_to_bucket(sample)
print(f"eager    {timed(model, x) * 1e3:.2f} ms")
print(f"compiled {timed(compiled, x) * 1e3:.2f} ms")
