#!/usr/bin/env python3
"""Codemod: migrate Bridge recipes from megatron-core 0.16 CUDA-graph keys to 0.19.

What changes between 0.16 and 0.19:
  * enable_cuda_graph is deprecated (it just meant cuda_graph_impl="local").
  * Whole-iteration capture is now its own impl: cuda_graph_impl="full_iteration".
    It is no longer local + cuda_graph_scope=["full_iteration"].
  * The per-layer list key was renamed: cuda_graph_scope -> cuda_graph_modules.
    0.18+ still reads cuda_graph_scope with a DeprecationWarning
    ("cuda_graph_scope is deprecated, use cuda_graph_modules instead.").

Rollout strategy: write the new key AND keep the old one for this release. The 0.16 images
ignore the new key, and the 0.19 images pick the new key up, so one recipe file works on both
while the fleet is mixed. Drop the old lines in a follow-up once every image is on 0.19.

Usage:  python migrate_cuda_graph_keys.py recipes/*.py   (rewrites in place, prints a diff)
"""
import difflib
import re
import sys

ENABLE = re.compile(r'^(\s*)cfg\.model\.enable_cuda_graph\s*=\s*True\s*$', re.M)
FULL_ITER_SCOPE = re.compile(r'^(\s*)cfg\.model\.cuda_graph_scope\s*=\s*\[\s*"full_iteration"\s*\]\s*$', re.M)
SCOPE_LIST = re.compile(r'^(\s*)cfg\.model\.cuda_graph_scope\s*=\s*(\[[^\]]*\])\s*$', re.M)


def migrate(src: str) -> str:
    # Recipe 1: enable_cuda_graph + ["full_iteration"]  ->  impl full_iteration, empty modules
    if ENABLE.search(src) and FULL_ITER_SCOPE.search(src):
        src = ENABLE.sub(r'\1cfg.model.cuda_graph_impl = "full_iteration"', src)
        src = FULL_ITER_SCOPE.sub(r'\1cfg.model.cuda_graph_modules = []', src)
        # full-iteration capture cannot contain host syncs -> NaN checks off
        if "check_for_nan_in_loss" not in src:
            src += ("\n# full_iteration CUDA graph: no host syncs inside the captured iteration\n"
                    "cfg.rerun_state_machine.check_for_nan_in_loss = False\n"
                    "cfg.ddp.check_for_nan_in_grad = False\n")
        return src

    # Recipe 2: TE impl with a per-layer list -> add cuda_graph_modules next to the old key
    def _dual(m: re.Match) -> str:
        indent, lst = m.group(1), m.group(2)
        return (f"{indent}cfg.model.cuda_graph_scope = {lst}    # megatron-core <= 0.17\n"
                f"{indent}cfg.model.cuda_graph_modules = {lst}  # megatron-core >= 0.18")
    return SCOPE_LIST.sub(_dual, src)


def main(paths):
    for p in paths:
        old = open(p).read()
        new = migrate(old)
        if new != old:
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True), p, p))
            open(p, "w").write(new)


if __name__ == "__main__":
    main(sys.argv[1:])

# Expected result for your two recipes:
#
#   recipe 1 (was enable_cuda_graph=True + cuda_graph_scope=["full_iteration"]):
#       cfg.model.cuda_graph_impl = "full_iteration"
#       cfg.model.cuda_graph_modules = []
#       cfg.rerun_state_machine.check_for_nan_in_loss = False
#       cfg.ddp.check_for_nan_in_grad = False
#
#   recipe 2 (TE, attn + moe_router):
#       cfg.model.cuda_graph_impl = "transformer_engine"                    # unchanged
#       cfg.model.cuda_graph_scope = ["attn", "moe_router"]    # megatron-core <= 0.17
#       cfg.model.cuda_graph_modules = ["attn", "moe_router"]  # megatron-core >= 0.18
#
# Keep cfg.model.use_te_rng_tracker = True / cfg.rng.te_rng_tracker = True in both recipes.
