"""
Diagnosing and fixing torch.compile recompiles in a plain PyTorch model.

Walkthrough (run the steps in order; most slowdowns are fixed by step 2):

1. SEE why it recompiles
       TORCH_LOGS="recompiles" python train.py
   Every recompile prints the guard that failed, e.g.
       tensor 'x' size mismatch at index 1. expected 512, actual 497
       ___check_obj_id(...)        -> a Python object/module attribute changed
       L['lr'] == 0.00029          -> a Python float/int is being specialized on
   For a full picture (graph breaks, compile times per frame) use
       TORCH_TRACE=/tmp/trace python train.py && tlparse /tmp/trace
   TORCH_LOGS="graph_breaks" shows where the graph is split.

2. FIX the guard, by cause:
   - Varying sequence length / batch size -> mark that dim dynamic (below), or pad/bucket
     inputs to a handful of sizes (e.g. multiples of 64). Bucketing is often the fastest option
     at runtime because each bucket gets fully static kernels.
   - Python scalars that change every step (LR, step counter, temperature) -> pass them as
     0-d tensors instead of floats/ints, or they become constants baked into the graph.
   - model.train()/model.eval() flips, toggling requires_grad, changing dtype/device
     -> expected recompiles. Compile separate callables for train and eval if you switch often.
   - Mutating nn.Module attributes inside forward (counters, caches) -> move them to buffers.

3. PICK a mode once shapes are under control:
   - mode="default": good compile time / speed balance. Start here.
   - mode="reduce-overhead": adds CUDA graphs to cut Python/launch overhead. Helps small
     batches and launch-bound models, needs stable shapes (each new shape means a new
     recording), and uses extra memory for the graph pools. Don't use it to "fix" recompiles.
   - mode="max-autotune": benchmarks kernel configs (and uses CUDA graphs). Much longer
     compile, best steady-state speed for static shapes. "max-autotune-no-cudagraphs" if
     graphs get in the way.

4. ONLY THEN consider the recompile limit:
   torch._dynamo.config.recompile_limit (called cache_size_limit on older releases, default 8).
   When a frame hits it, Dynamo stops compiling that frame and falls back to eager, which is
   often the "slow after a few steps" you see. Raising it just hides unfixed guards and
   burns compile time.
"""
import os

import torch
import torch._dynamo

# Debugging aid: make a recompile an error instead of a silent slowdown (torch >= 2.6).
# torch.compiler.set_stance("fail_on_recompile")


class Model(torch.nn.Module):
    def __init__(self, d=1024):
        super().__init__()
        self.ff = torch.nn.Sequential(
            torch.nn.Linear(d, 4 * d), torch.nn.GELU(), torch.nn.Linear(4 * d, d)
        )

    def forward(self, x, scale):
        # `scale` is a 0-d tensor, not a Python float -> no value guard / recompile.
        return self.ff(x) * scale


def pad_to_bucket(x, multiple=64, dim=1):
    """Pad the sequence dim up to a multiple of `multiple` so only a few shapes exist."""
    n = x.size(dim)
    target = (n + multiple - 1) // multiple * multiple
    if target == n:
        return x
    pad = [0, 0] * (x.dim() - dim - 1) + [0, target - n]
    return torch.nn.functional.pad(x, pad)


model = Model().cuda()

# Option A: let Dynamo treat shapes as symbolic from the start.
compiled = torch.compile(model, dynamic=True)  # default dynamic=None goes dynamic after the first recompile

# Option B (often better): keep static compile, mark only the dim that really varies.
compiled_b = torch.compile(model)  # mode="default"

scale = torch.tensor(1.0, device="cuda")
for step, seqlen in enumerate([497, 512, 380, 611]):
    x = torch.randn(8, seqlen, 1024, device="cuda")

    # A: dynamic=True, no extra work.
    y = compiled(x, scale)

    # B: mark dim 1 dynamic before the call, or bucket it.
    torch._dynamo.mark_dynamic(x, 1)
    y_b = compiled_b(x, scale)

    # C: bucketing instead of dynamic shapes (use with a separate static-compiled callable).
    x_c = pad_to_bucket(x, 64, dim=1)

    scale.fill_(0.999 ** step)  # update in place; never pass a changing Python float

if os.environ.get("TORCH_LOGS"):
    print("Check the log above: after the fixes you should see at most one or two recompiles.")
