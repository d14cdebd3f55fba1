"""The Bridge ``scripts/performance/run_script.py`` command pair: eager and graph, same everything else.

Flag names and valid values are those of Bridge's ``scripts/performance/argument_parser.py``
(Megatron-Bridge main @067f987): ``--cuda_graph_impl`` in ``VALID_CUDA_GRAPH_IMPLS`` and
``--cuda_graph_scope`` a comma-separated subset of ``VALID_CUDA_GRAPH_SCOPES``. That script
spells full-iteration capture the legacy way (``local`` + ``full_iteration``) and reserves
``local`` for it ("Scoped captures such as attn or mlp require cuda_graph_impl=transformer_engine").
"""

from __future__ import annotations

import argparse
from typing import Any

from skill_tools.errors import InputError

RUN_SCRIPT = "scripts/performance/run_script.py"
VALID_CUDA_GRAPH_IMPLS = ("none", "local", "transformer_engine")
VALID_CUDA_GRAPH_SCOPES = ("full_iteration", "attn", "mlp", "moe", "moe_router", "moe_preprocess", "mamba")


def graph_flags(impl: str, scope: list[str]) -> tuple[list[str], str]:
    """(run_script flags, label) for a graph request in this package's vocabulary."""
    if impl == "full_iteration":
        return ["--cuda_graph_impl", "local", "--cuda_graph_scope", "full_iteration"], "full iteration"
    if impl == "local":
        if scope and scope != ["full_iteration"]:
            raise InputError("--impl", "run_script.py reserves cuda_graph_impl=local for full_iteration",
                             hint="use --impl transformer_engine --scope " + ",".join(scope))
        raise InputError("--impl", "run_script.py has no per-layer local graphs (local is reserved for full_iteration)",
                         hint="use --impl full_iteration or --impl transformer_engine --scope attn,mlp")
    if impl == "transformer_engine":
        if not scope:
            raise InputError("--scope", "transformer_engine needs a scope for run_script.py",
                             hint="e.g. --scope attn,mlp (dense) or attn,moe_router,moe_preprocess (MoE)")
        bad = [s for s in scope if s not in VALID_CUDA_GRAPH_SCOPES or s == "full_iteration"]
        if bad:
            raise InputError("--scope", f"not a valid transformer_engine scope for run_script.py: {bad}",
                             hint="valid: " + ", ".join(VALID_CUDA_GRAPH_SCOPES[1:]))
        return ["--cuda_graph_impl", "transformer_engine", "--cuda_graph_scope", ",".join(scope)], \
            "transformer_engine " + ",".join(scope)
    raise InputError("--impl", f"{impl!r} is not a graph implementation", hint="full_iteration or transformer_engine")


def bridge_command_pair(args: argparse.Namespace) -> dict[str, Any]:
    impl = args.impl or "full_iteration"
    scope = [s.strip() for s in (args.scope or "").split(",") if s.strip()]
    if impl == "none":
        raise InputError("--impl", "none is the eager side of the pair", hint="name the graph side, e.g. full_iteration")
    flags, label = graph_flags(impl, scope)
    base = ["python", RUN_SCRIPT, "-m", args.model_family, "-mr", args.model_recipe,
            "-g", args.gpu_name, "-ng", str(args.num_gpus), "-c", "bf16"]
    notes = ["run both from a Megatron-Bridge checkout with the same cluster flags, then compare the "
             "step times the two training logs report"]
    if impl == "full_iteration":
        notes.append("full-iteration graphs need no host syncs in the step: keep "
                     "rerun_state_machine.check_for_nan_in_loss off and a dropless MoE router off")
    return {"eager": base + ["--cuda_graph_impl", "none"], "graph": base + flags, "graph_label": label,
            "notes": notes, "source": "Megatron-Bridge scripts/performance/argument_parser.py"}
