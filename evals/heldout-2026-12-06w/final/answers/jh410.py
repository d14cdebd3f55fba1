"""torch.compile tuning recipe for a model that keeps recompiling.

Run once with recompile logging to see which guard fails:

    TORCH_LOGS="recompiles,graph_breaks" python train.py

Each "Recompiling function ... triggered by the following guard failure(s)" line names the
culprit: usually a tensor size, a Python int/float argument, or a module attribute.
"""

import torch
import torch._dynamo

# -- 1. Guard hygiene -------------------------------------------------------------------------
# Python scalars are specialized: a changing `step` or `lr` argument means one graph per value.
# Keep them out of the compiled function or pass them as 0-d tensors.

# -- 2. Shapes ----------------------------------------------------------------------------------
# Variable sequence lengths are the #1 cause. Two complementary fixes:
#   a) bucket/pad sequence lengths (multiples of 64) and use drop_last=True in the DataLoader,
#   b) compile with dynamic=False so Dynamo builds one graph and reuses it for every input shape
#      instead of re-tracing each time a new length shows up.
SEQ_BUCKET = 64


def pad_to_bucket(input_ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    seq = input_ids.shape[1]
    target = ((seq + SEQ_BUCKET - 1) // SEQ_BUCKET) * SEQ_BUCKET
    if target == seq:
        return input_ids
    return torch.nn.functional.pad(input_ids, (0, target - seq), value=pad_id)


def build(model: torch.nn.Module) -> torch.nn.Module:
    # -- 3. Mode ----------------------------------------------------------------------------------
    # "default": good first choice.
    # "reduce-overhead": CUDA graphs; helps small, launch-bound batches, costs memory, and
    #                    wants stable shapes.
    # "max-autotune": long compile, autotuned GEMMs + CUDA graphs; for the final long run.
    return torch.compile(
        model,
        mode="default",
        dynamic=False,     # single graph for all shapes -> no more shape recompiles
        fullgraph=False,   # set True while debugging to surface graph breaks as errors
    )


# -- 4. Recompile limit -----------------------------------------------------------------------
# Default 8 compiled versions per frame; beyond that the frame silently runs eager.
# Only raise it once the remaining recompiles are a small, known set of shapes.
torch._dynamo.config.recompile_limit = 16  # `cache_size_limit` on older PyTorch


def train_step(model, optimizer, batch, pad_id):
    input_ids = pad_to_bucket(batch["input_ids"].cuda(non_blocking=True), pad_id)
    labels = pad_to_bucket(batch["labels"].cuda(non_blocking=True), -100)
    out = model(input_ids=input_ids, labels=labels)
    out.loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return out.loss.detach()


# -- 5. Measure ---------------------------------------------------------------------------------
# Time steady-state steps only (after the first few compile-bearing iterations), with
# torch.cuda.synchronize() around the timed region, and compare with eager on the same shapes.
