"""compile_utils.py: torch.compile helpers for a training loop that recompiles too often.

Usage
-----
    from compile_utils import compile_for_training, recompile_report

    model = compile_for_training(model, mode="default")
    with recompile_report():
        for step, batch in enumerate(loader):
            loss = model(**batch).loss
            ...

Why these choices
-----------------
* Recompiles "every few steps" almost always come from guard failures, most often the input
  shape (batch or sequence length) changing between steps. Run once with
  ``TORCH_LOGS=recompiles`` (or use ``recompile_report`` below) to see which guard fails.
* ``dynamic=False`` tells Dynamo not to specialize on input sizes, so a new batch/sequence
  length reuses the graph that's already compiled instead of triggering a recompile. This is
  the main fix for shape-driven recompiles, so it is the default here.
* Modes: "default" (balanced, fast compile), "reduce-overhead" (cuts Python/launch overhead
  for small batches; extra memory), "max-autotune" (autotunes kernels, long compile; use for
  long runs with stable shapes).
* ``torch._dynamo.config.recompile_limit`` (alias ``cache_size_limit``, default 8) is how many
  versions Dynamo keeps per frame before falling back to eager. Raise it only after the
  guard failures are understood; raising it first just hides the problem.
"""

from __future__ import annotations

import contextlib
import logging

import torch


def compile_for_training(model: torch.nn.Module, mode: str = "default", fullgraph: bool = False):
    """Compile ``model`` so that changing input shapes don't cause recompiles."""
    return torch.compile(model, mode=mode, dynamic=False, fullgraph=fullgraph)


@contextlib.contextmanager
def recompile_report(verbose: bool = False):
    """Log every recompile with the guard that failed (same as TORCH_LOGS=recompiles)."""
    if verbose:
        torch._logging.set_logs(recompiles_verbose=True)
    else:
        torch._logging.set_logs(recompiles=True)
    try:
        yield
    finally:
        torch._logging.set_logs(recompiles=False, recompiles_verbose=False)


def raise_recompile_limit(n: int = 16, fail_on_hit: bool = False) -> None:
    """Only after fixing guards: allow more compiled versions per frame."""
    torch._dynamo.config.recompile_limit = n
    torch._dynamo.config.fail_on_recompile_limit_hit = fail_on_hit


# Other guard failures the report may show, and the fix:
#   L['step'] == 7           -> a Python int changes every call; pass a tensor or hoist it out
#   ___check_obj_id(...)     -> a new object/attribute each call; keep it stable
#   training / requires_grad -> train<->eval switch; expect one extra compile per mode
if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    m = compile_for_training(torch.nn.Linear(16, 16))
    with recompile_report():
        for n in (4, 8, 12):
            m(torch.randn(n, 16))
