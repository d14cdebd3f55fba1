"""sitecustomize.py - torch.compile tuning defaults for our training jobs.

Drop this file on PYTHONPATH (or into site-packages) and every `python train.py`
picks it up before user code runs. It answers "my model recompiles every few
steps and is slow under torch.compile" in three parts:

1. Make recompiles visible, so you can see *which* guard fails.
2. Stop the churn: dynamic dims and guard hygiene.
3. Pick a compile mode and keep the environment consistent with it.

Read the recompile log first (part 1). Everything else depends on what it says.
"""

import os

# --------------------------------------------------------------------------
# 1. Visibility. Must be set before torch is imported.
#    Each recompile prints the failing guard, e.g.
#      "tensor 'L['x']' size mismatch at index 1. expected 512, actual 384"
#    `recompiles_verbose` lists every failing guard, not just the first one.
# --------------------------------------------------------------------------
os.environ.setdefault("TORCH_LOGS", "recompiles,graph_breaks")
# For a full dump to inspect with `tlparse`:
# os.environ.setdefault("TORCH_TRACE", "./torch_trace")

# --------------------------------------------------------------------------
# 3a. Environment for the compile mode we use in training.
#     mode="reduce-overhead" records CUDA graphs, and CUDA graphs with the
#     expandable-segments allocator need NCCL's graph buffer registration off.
#     Otherwise replays can hit illegal memory accesses once NCCL collectives
#     are inside the graphed region (DDP/FSDP all-reduce).
# --------------------------------------------------------------------------
os.environ.setdefault("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True")
os.environ.setdefault("NCCL_GRAPH_REGISTER", "0")

import torch  # noqa: E402  (after the env vars above on purpose)
import torch._dynamo  # noqa: E402

# --------------------------------------------------------------------------
# 2. Stop the churn.
# --------------------------------------------------------------------------
# Default `dynamic=None` already recompiles once with a dynamic dim after the
# first size change (automatic dynamic shapes). Keep it on.
torch._dynamo.config.automatic_dynamic_shapes = True

# The recompile limit (formerly cache_size_limit) defaults to 8. When a frame
# hits it, Dynamo falls back to eager for that frame, which is often the real
# reason for "slow under compile". Do NOT just raise it. Fix the guards first,
# then set it to the number of variants you really have (e.g. 3 bucketed
# lengths x train/eval = 6 -> 8 is fine).
torch._dynamo.config.recompile_limit = 8

# In CI, fail loudly instead of silently recompiling:
if os.environ.get("COMPILE_STRICT") == "1":
    torch._dynamo.config.fail_on_recompile_limit_hit = True


def mark_batch_dynamic(batch: dict, seq_dim: int = 1) -> dict:
    """Mark the sequence dimension dynamic up front, before the first call.

    Use when sequence length legitimately varies (no padding/bucketing).
    Otherwise pad or bucket to a few fixed lengths, which suits
    reduce-overhead better because every new static shape is another
    CUDA graph recording.
    """
    for v in batch.values():
        if isinstance(v, torch.Tensor) and v.dim() > seq_dim:
            torch._dynamo.mark_dynamic(v, seq_dim)
    return batch


# Common guard sources to remove from the compiled region:
#   - Python ints/floats that change per step (step counter, lr, temperature):
#     pass tensors or keep them outside the compiled function.
#   - model.train()/model.eval() toggled inside the compiled forward.
#   - mutating self.<attr> in forward; requires_grad flips.
#   - .item()/print()/data-dependent Python control flow -> graph breaks
#     (TORCH_LOGS=graph_breaks, or torch._dynamo.explain(fn)(*args)).

# --------------------------------------------------------------------------
# 3b. Mode choice (used by train.py via COMPILE_MODE):
#   default                     fast compile, good baseline
#   reduce-overhead             CUDA graphs; small batches, stable shapes, more memory
#   max-autotune                Triton/template GEMM autotune + CUDA graphs; long compile
#   max-autotune-no-cudagraphs  the same without graphs, if memory is tight
# Try the others only after recompiles are gone.
# --------------------------------------------------------------------------
COMPILE_MODE = os.environ.get("COMPILE_MODE", "default")
