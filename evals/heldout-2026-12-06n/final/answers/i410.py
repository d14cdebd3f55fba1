# tune_compile.py - quick recipe for the "recompiles every few steps" problem
#
# 1) find the culprit:
#       TORCH_LOGS=recompiles python tune_compile.py
#    every line tells you which guard failed (usually a tensor size).
#
# 2) your inputs change length between batches -> that's the recompile.
#    Tell the compiler not to specialise on shapes: dynamic=False turns off
#    shape specialisation so one compiled graph is reused for every length.
#    (dynamic=True would instead try to trace symbolic shapes up front, which is
#    slower to compile.)
#
# 3) mode: start with "default"; "reduce-overhead" if you are launch-bound and
#    shapes are fixed; "max-autotune" for the long runs once things are stable.
#
# 4) don't just bump the recompile limit; fix the guards first.
import torch
import torch._dynamo

model = MyModel().cuda()  # noqa: F821 - your model

compiled = torch.compile(
    model,
    mode="default",       # -> "max-autotune" later
    dynamic=False,        # no shape specialisation, stops the size-guard recompiles
    fullgraph=False,
)

# keep python scalars out of the compiled forward (each new value is a guard)
def train_step(batch, step):
    out = compiled(batch["input_ids"])
    loss = out.float().mean()
    loss.backward()
    return loss

# only after the logs are clean:
# torch._dynamo.config.cache_size_limit = 16
