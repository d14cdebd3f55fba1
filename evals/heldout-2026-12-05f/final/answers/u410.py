"""Helpers to stop torch.compile from recompiling every few steps.

Summary:
    Recompiles come from guard failures: a tensor shape, a Python scalar, grad mode or a module
    attribute changed since the last compile. Find the failing guard, make the varying dimension
    dynamic (or remove the variation), then choose a compile mode. Raise the cache limit last.

    1. Diagnose:   TORCH_LOGS="recompiles" python train.py
                   (add ",graph_breaks" to see graph breaks; "recompiles_verbose" lists every guard)
    2. Dynamic:    torch._dynamo.mark_dynamic(x, dim) on the varying dim, or
                   torch.compile(model, dynamic=True); or pad/bucket to fixed lengths.
    3. Mode:       "default" | "reduce-overhead" (CUDA graphs, cuts launch overhead, wants static
                   shapes) | "max-autotune" (Triton autotuning + CUDA graphs, long compile).
    4. Limit:      torch._dynamo.config.cache_size_limit (default 8) only after fixing guards.

    CUDA-graph safety for "reduce-overhead" / "max-autotune":
        These modes capture CUDA graphs, so random ops must use a graph-safe RNG. Enable the
        Transformer Engine RNG tracker before compiling (``use_te_rng_tracker=True`` on the model
        config, ``--te-rng-tracker`` on the launcher) and export ``NCCL_GRAPH_REGISTER=0`` so
        allocator-registered buffers do not break replay. Without the tracker, dropout inside the
        captured region replays the same mask every step.

Example:
    >>> model = compile_for_training(MyModel().cuda(), mode="reduce-overhead")
    >>> for batch in loader:
    ...     x = mark_seq_dynamic(batch["input_ids"].cuda())
    ...     loss = model(x).loss
"""

import os

import torch


def mark_seq_dynamic(x: torch.Tensor, dim: int = 1) -> torch.Tensor:
    """Marks the sequence dimension as dynamic so length changes don't trigger recompiles.

    Args:
        x: Input tensor whose ``dim`` varies between steps.
        dim: Index of the varying dimension.

    Returns:
        The same tensor, marked for Dynamo.
    """
    torch._dynamo.mark_dynamic(x, dim)
    return x


def compile_for_training(model: torch.nn.Module, mode: str = "default", dynamic=None,
                         cache_size_limit: int = 8) -> torch.nn.Module:
    """Compiles ``model`` with sane recompilation settings.

    Args:
        model: The eager module.
        mode: "default", "reduce-overhead" or "max-autotune".
        dynamic: None (automatic dynamic after the first shape change), True, or False.
        cache_size_limit: Recompile budget per code object; raise only after fixing guards.

    Returns:
        The compiled module.
    """
    torch._dynamo.config.cache_size_limit = cache_size_limit
    if mode in ("reduce-overhead", "max-autotune"):
        # graph-safe RNG + no NCCL buffer registration under CUDA graphs (see module docstring)
        os.environ.setdefault("NCCL_GRAPH_REGISTER", "0")
        if hasattr(model, "config"):
            setattr(model.config, "use_te_rng_tracker", True)
    return torch.compile(model, mode=mode, dynamic=dynamic)
