# torch.compile recompile fix: drop-in for your training script.
#
# Diagnose first:
#     TORCH_LOGS="recompiles" python train.py
# Each line names the guard that failed (e.g. "size mismatch at index 1. expected 512, actual 480",
# or "L['step'] == 17" for a Python int argument).

import torch
import torch._dynamo

model = build_model().cuda()

# 1) Stop Dynamo from guessing about shapes.
#    With the default (dynamic=None) it watches for shape changes and keeps re-tracing when one
#    shows up; that's the "recompiles every few steps" you're seeing. dynamic=False pins it to
#    static kernels, so a new sequence length reuses the specialized graph instead of triggering
#    another compile.
# 2) mode="max-autotune-no-cudagraphs": autotuned matmuls, but no CUDA graphs, which would record
#    one more graph per shape.
model = torch.compile(model, dynamic=False, mode="max-autotune-no-cudagraphs")

# 3) Headroom: the default recompile limit is 8, after which Dynamo silently falls back to eager
#    for that frame (that fallback is why it's *slower* than eager). Give it room.
torch._dynamo.config.recompile_limit = 64        # `cache_size_limit` on older PyTorch

# 4) Python scalars that change every step are guarded on their exact value:
#    pass them as tensors instead of ints/floats.
for step, (x, y) in enumerate(loader):
    step_t = torch.tensor(step, device="cuda")
    loss = model(x.cuda(), y.cuda(), step_t)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)

# 5) Also worth doing:
#    - drop_last=True in the DataLoader (the short last batch is another shape)
#    - don't flip model.train()/model.eval() inside the compiled region every step
#    - torch.compile(..., fullgraph=True) once to surface graph breaks (.item(), print, etc.)
#    - time only steady-state steps, after the first few iterations that include compilation
