# torch.compile tuning for a model that keeps recompiling.
#
# Step 0 - find out what is changing between calls:
#     TORCH_LOGS="recompiles" python train.py
# Every line names the guard that failed, e.g.
#     tensor 'L['x']' size mismatch at index 1. expected 384, actual 512
# which means Dynamo specialised on the sequence length and you feed varying lengths.

import torch
import torch._dynamo as dynamo

model = build_model().cuda()  # your model

# --- Dynamic shapes -------------------------------------------------------------------------
# With the default dynamic=None, Dynamo treats the first shapes it sees as symbols it may
# specialise on, and every time a guard on one of those symbols fails it recompiles. Passing
# dynamic=False turns that symbolic tracing off: Dynamo stops installing size guards on inputs
# and reuses one compiled graph for every batch/sequence size, so the recompiles go away.
# (dynamic=True does the opposite: it tries to make every dim symbolic, which is slower.)
compiled = torch.compile(
    model,
    mode="default",        # start here; see below for the other modes
    dynamic=False,
    fullgraph=False,
)

# If you only have one or two dimensions that vary you can also be explicit per input:
#     dynamo.mark_dynamic(x, 1)          # dim 1 (sequence) varies
# but with dynamic=False above this is normally not needed.

# --- Recompile budget -----------------------------------------------------------------------
# Each code object keeps at most `recompile_limit` compiled versions (default 8); past that
# Dynamo falls back to eager for that frame, which is usually the "suddenly slow" moment.
# Raise it only after the guards are fixed, otherwise you just compile more often.
dynamo.config.recompile_limit = 16        # older releases: dynamo.config.cache_size_limit

# --- Modes ----------------------------------------------------------------------------------
# "default"                 : reasonable compile time, good speedup
# "reduce-overhead"         : adds CUDA graphs to cut kernel-launch overhead (small batches);
#                             needs stable shapes and uses extra memory for static buffers
# "max-autotune"            : autotunes matmul/conv/Triton configs, long compile, best for
#                             fixed shapes; "max-autotune-no-cudagraphs" skips the graphs

# --- Graph breaks ---------------------------------------------------------------------------
# Graph breaks do not cause recompiles by themselves but split the program and cost speed.
#     explanation = dynamo.explain(model)(example_input)
#     print(explanation.break_reasons)
# Usual suspects: .item(), print(), data-dependent if/else, numpy calls inside forward.

# --- Also worth doing -----------------------------------------------------------------------
# * Pass per-step Python scalars (step, lr, temperature) as tensors, or keep them out of the
#   compiled function: a changing Python int is baked in as a constant and guarded on.
# * drop_last=True on the DataLoader so the final short batch does not add a new shape.
# * Time only steady-state iterations after warm-up; the first calls include compilation.

for step, (x, y) in enumerate(loader):
    out = compiled(x.cuda(non_blocking=True))
    loss = loss_fn(out, y.cuda(non_blocking=True))
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
