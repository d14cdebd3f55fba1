"""
torch.compile tuning recipe for a model that keeps recompiling.

Run once with recompile logging to see *why* it recompiles:

    TORCH_LOGS="recompiles" python train.py
    # more detail on the failing guard:
    TORCH_LOGS="recompiles_verbose,graph_breaks" python train.py

Each "Recompiling function forward ... triggered by the following guard failure(s)"
line names the guard that failed, e.g.
    - tensor 'x' size mismatch at index 1. expected 512, actual 487
    - ___check_obj_id(self.step) / L['step'] == 12
Fix the cause, and only then touch the limits at the bottom.
"""
import torch
import torch._dynamo


def build_compiled(model: torch.nn.Module):
    # 1) Dynamic shapes.
    #    Variable sequence lengths / ragged last batches are the #1 cause of
    #    recompiles. Pass dynamic=False: Dynamo then stops guarding on tensor
    #    sizes, so a new sequence length reuses the graph that was already
    #    compiled instead of triggering another compile. This is the quickest way
    #    to stop the "recompiles every few steps" pattern, and it also avoids the
    #    symbolic-shape overhead that dynamic=True adds to every kernel.
    #
    # 2) Mode.
    #    "default"          -> good first choice, reasonable compile time
    #    "reduce-overhead"  -> cuts Python/launch overhead for small batches;
    #                          uses more memory, wants stable shapes
    #    "max-autotune"     -> benchmarks Triton/GEMM configs; long compile,
    #                          best for long runs with fixed shapes
    #    "max-autotune-no-cudagraphs" -> autotuning without the graph recording
    return torch.compile(model, mode="default", dynamic=False)


def mark_inputs(batch: dict):
    # If you later switch to dynamic=None (the default, "automatic dynamic"),
    # you can pre-mark the sequence dim so the very first compile is already
    # dynamic instead of specialising on the first length it sees:
    # torch._dynamo.mark_dynamic(batch["input_ids"], 1, min=16, max=4096)
    return batch


# 3) Other common guard failures (fix these in your code):
#    - Python ints/floats that change every step (step counter, LR, dropout p)
#      passed into forward -> pass them as tensors or keep them out of forward.
#    - model.train()/model.eval() toggling -> expected: one graph per mode.
#    - Creating new nn.Module instances or closures each step -> build once.
#    - Mutating module attributes that forward reads (self.some_flag) mid-run.
#    - Graph breaks: run once with fullgraph=True to see where they are, or
#      torch._dynamo.explain(model)(example_input).

# 4) Limits (last resort). Once a frame hits the limit Dynamo stops compiling it
#    and falls back to eager for that frame, which looks like "slow under compile".
#    The knob is torch._dynamo.config.recompile_limit (default 8;
#    older releases call it cache_size_limit).
torch._dynamo.config.recompile_limit = 16

# 5) Measure after warmup only: the first iterations include compilation.
#    Bucket/pad sequence lengths to a few fixed sizes (e.g. multiples of 128)
#    and use drop_last=True in the DataLoader. That helps every mode.
