#!/usr/bin/env python3
"""codemod_cuda_graphs_019.py — rewrite Bridge recipes from the megatron-core 0.16 CUDA-graph
keys to the 0.19 ones.

What changes between 0.16 and 0.19:
  * per-layer coverage was renamed: cuda_graph_scope -> cuda_graph_modules
    (0.19 still accepts cuda_graph_scope, migrates it and emits
     "cuda_graph_scope is deprecated, use cuda_graph_modules instead."; setting both is an error)
  * whole-iteration capture is its own implementation: cuda_graph_impl="full_iteration"
    with an empty cuda_graph_modules list (previously local + cuda_graph_scope=["full_iteration"])

Mapping applied:
  recipe 1:  enable_cuda_graph = True + cuda_graph_scope = ["full_iteration"]
         ->  cuda_graph_impl = "full_iteration", cuda_graph_modules = []
  recipe 2:  cuda_graph_impl = "transformer_engine" + cuda_graph_scope = ["attn", "moe_router"]
         ->  cuda_graph_impl = "transformer_engine", cuda_graph_modules = ["attn", "moe_router"]

`enable_cuda_graph` is left in place: it is only a legacy alias that 0.19 consults when
cuda_graph_impl is not set, so once cuda_graph_impl is written explicitly it no longer matters
and removing it would just create diff noise in every recipe.

Usage:  python codemod_cuda_graphs_019.py path/to/recipes/*.py   (rewrites in place, prints a summary)
"""
import re
import sys
from pathlib import Path

SCOPE_RE = re.compile(r"^(?P<indent>\s*)(?P<obj>[\w.]+)\.cuda_graph_scope\s*=\s*(?P<val>\[[^\]]*\]|\"[^\"]*\")\s*$", re.M)
FULL_ITER_RE = re.compile(r"""\[\s*["']full_iteration["']\s*\]""")


def rewrite(src: str) -> str:
    def _sub(m: re.Match) -> str:
        indent, obj, val = m["indent"], m["obj"], m["val"]
        if FULL_ITER_RE.fullmatch(val.strip()):
            return (
                f'{indent}{obj}.cuda_graph_impl = "full_iteration"\n'
                f"{indent}{obj}.cuda_graph_modules = []"
            )
        return f"{indent}{obj}.cuda_graph_modules = {val}"

    out = SCOPE_RE.sub(_sub, src)
    # drop an explicit impl="local" that belonged to a full_iteration scope (the new line replaces it)
    if FULL_ITER_RE.search(src):
        out = re.sub(r'^\s*[\w.]+\.cuda_graph_impl\s*=\s*"local"\s*\n', "", out, flags=re.M)
    return out


def main(paths):
    for p in map(Path, paths):
        old = p.read_text()
        new = rewrite(old)
        if new != old:
            p.write_text(new)
            print(f"rewrote {p}")


if __name__ == "__main__":
    main(sys.argv[1:])

# Result for your two recipes:
#
#   recipe 1 (after):
#       cfg.model.enable_cuda_graph = True
#       cfg.model.cuda_graph_impl = "full_iteration"
#       cfg.model.cuda_graph_modules = []
#       cfg.rerun_state_machine.check_for_nan_in_loss = False   # keep: required for full_iteration
#       cfg.ddp.check_for_nan_in_grad = False
#
#   recipe 2 (after):
#       cfg.model.cuda_graph_impl = "transformer_engine"
#       cfg.model.cuda_graph_modules = ["attn", "moe_router"]
#
# Keep use_te_rng_tracker / rng.te_rng_tracker = True in both.
