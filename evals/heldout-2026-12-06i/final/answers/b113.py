"""codemods/mcore019_cuda_graph_keys.py

Rewrites Bridge recipes from the megatron-core 0.16 CUDA-graph keys to the 0.18+/0.19 ones.

    python -m libcst.tool codemod mcore019_cuda_graph_keys.MigrateCudaGraphKeys recipes/

The mapping it applies (and what your two recipes become):

  Recipe 1 (before)                                   Recipe 1 (after, 0.19)
  cfg.model.enable_cuda_graph = True                  cfg.model.cuda_graph_impl = "full_iteration"
  cfg.model.cuda_graph_scope = ["full_iteration"]     cfg.model.cuda_graph_modules = []

      enable_cuda_graph is deprecated (MCore maps it to cuda_graph_impl="local"), and on 0.18+
      whole-iteration capture is its own impl, "full_iteration", with the module list left
      *empty*. Keep rerun_state_machine.check_for_nan_in_loss=False and
      ddp.check_for_nan_in_grad=False. Full-iteration capture still can't contain their host syncs.

  Recipe 2 (before)                                   Recipe 2 (after, 0.19)
  cfg.model.cuda_graph_impl = "transformer_engine"    cfg.model.cuda_graph_impl = "transformer_engine"
  cfg.model.cuda_graph_scope = ["attn","moe_router"]  cfg.model.cuda_graph_modules = ["attn", "moe_router"]

      Only the key name changes.

Why not leave the old keys alone? 0.18+ still accepts cuda_graph_scope and migrates it
("cuda_graph_scope is deprecated, use cuda_graph_modules instead."), so old recipes keep
working with a warning. But if a recipe ends up with BOTH keys set (for example, a base recipe
still sets cuda_graph_scope="full" and you add cuda_graph_modules on top), __post_init__
fails with "cuda_graph_scope and cuda_graph_modules cannot be set together." (MLM CLI
equivalent: "--cuda-graph-scope and --cuda-graph-modules cannot be used together.").
So the codemod turns every cuda_graph_scope into cuda_graph_modules. Run it over base
recipes as well as leaf recipes.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m
from libcst.codemod import CodemodContext, VisitorBasedCodemodCommand

_SCOPE = m.Attribute(attr=m.Name("cuda_graph_scope"))
_ENABLE = m.Attribute(attr=m.Name("enable_cuda_graph"))
_FULL_ITER_LIST = m.List(elements=[m.Element(m.SimpleString('"full_iteration"') | m.SimpleString("'full_iteration'"))])


def _assign_target(stmt: cst.BaseSmallStatement):
    if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1:
        return stmt.targets[0].target
    return None


class MigrateCudaGraphKeys(VisitorBasedCodemodCommand):
    DESCRIPTION = "megatron-core 0.16 -> 0.19 CUDA graph keys (cuda_graph_scope -> cuda_graph_modules)."

    def __init__(self, context: CodemodContext) -> None:
        super().__init__(context)

    def leave_SimpleStatementLine(self, original, updated):
        stmt = updated.body[0]
        target = _assign_target(stmt)
        if target is None:
            return updated

        # enable_cuda_graph = True  ->  cuda_graph_impl = "local"   (refined below for full_iteration)
        if m.matches(target, _ENABLE) and m.matches(stmt.value, m.Name("True")):
            return updated.with_changes(
                body=[stmt.with_changes(
                    targets=[cst.AssignTarget(target.with_changes(attr=cst.Name("cuda_graph_impl")))],
                    value=cst.SimpleString('"local"'),
                )]
            )

        if m.matches(target, _SCOPE):
            new_target = cst.AssignTarget(target.with_changes(attr=cst.Name("cuda_graph_modules")))
            if m.matches(stmt.value, _FULL_ITER_LIST):
                # full_iteration is no longer a module: empty list + impl="full_iteration"
                return updated.with_changes(
                    body=[stmt.with_changes(targets=[new_target], value=cst.List(elements=[]))]
                )
            return updated.with_changes(body=[stmt.with_changes(targets=[new_target])])
        return updated

    def leave_IndentedBlock(self, original, updated):
        # Second pass within a block: if this block set cuda_graph_modules = [] from a
        # full_iteration scope, the preceding impl must be "full_iteration", not "local".
        src = [cst.Module(body=[s]).code for s in original.body]
        had_full_iter = any("cuda_graph_scope" in s and "full_iteration" in s for s in src)
        if not had_full_iter:
            return updated
        body = []
        for s in updated.body:
            code = cst.Module(body=[s]).code
            if "cuda_graph_impl" in code and ('"local"' in code or "'local'" in code):
                s = cst.parse_statement(code.replace('"local"', '"full_iteration"').replace("'local'", '"full_iteration"'))
            body.append(s)
        return updated.with_changes(body=body)


# After running: grep -rn "cuda_graph_scope\|enable_cuda_graph" recipes/ should return nothing,
# and the 0.19 TransformerConfig should build without DeprecationWarnings for these keys.
