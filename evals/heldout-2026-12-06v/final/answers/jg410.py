# compile_tuning.py -- drop-in pattern for a plain PyTorch training loop that keeps recompiling.
#
# Run once with recompile logging to see which guard is failing:
#     TORCH_LOGS="recompiles" python compile_tuning.py
# Each line names the guard that failed, e.g.
#     tensor 'L['x']' size mismatch at index 1. expected 512, actual 384
# or a Python scalar guarded as a constant (learning rate, step counter, flags).

import torch
import torch._dynamo

# Recompiles past this limit make Dynamo fall back to eager for that frame, which is
# usually where the "it got slow" comes from. Fix the guards first; raise this only if you
# really have a small, fixed set of variants.
torch._dynamo.config.recompile_limit = 8


def build_model():
    # placeholder for your model
    return torch.nn.Sequential(
        torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)
    ).cuda()


model = build_model()

# Compile settings:
#   dynamic=False  -> tells Dynamo not to specialize the graph on concrete input sizes, so a
#                     batch or sequence length that changes between steps no longer invalidates
#                     the compiled graph. This is the switch that stops shape-driven recompiles.
#   mode="max-autotune" -> autotunes GEMM/Triton configs; longer first compile, faster steady
#                     state. Use "default" while iterating, "max-autotune" for long runs.
compiled = torch.compile(model, mode="max-autotune", dynamic=False)

# Scalars: if you pass something that changes every step into a compiled function (a
# scale factor, a step counter), pass it as a tensor, not a Python number. A Python float
# argument is guarded by value and triggers a recompile whenever it changes.
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)  # optimizer step stays eager here

# Keep train/eval on separate compiled callables instead of toggling one:
# model.train()/model.eval() flips a guarded attribute and causes a recompile each time.
compiled_eval = torch.compile(model, mode="default", dynamic=False)


def train_step(x, y):
    opt.zero_grad(set_to_none=True)
    out = compiled(x)
    loss = torch.nn.functional.mse_loss(out, y)
    loss.backward()
    opt.step()
    return loss.detach()


if __name__ == "__main__":
    # Variable sequence lengths like a real data loader; with dynamic=False these reuse one graph.
    for step, seqlen in enumerate([512, 384, 512, 256, 448] * 4):
        x = torch.randn(8, seqlen, 1024, device="cuda")
        y = torch.randn(8, seqlen, 1024, device="cuda")
        loss = train_step(x, y)
        if step % 5 == 0:
            torch.cuda.synchronize()
            print(step, loss.item())

# Timing: skip the first few steps (compilation), call torch.cuda.synchronize() before
# reading the clock, and compare steady-state step time against the eager model.
# If TORCH_LOGS="graph_breaks" shows breaks, fix those too; each break splits the graph and
# adds Python overhead between the compiled pieces.
