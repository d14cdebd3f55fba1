"""migrate_cuda_graph_keys.py: rewrite our Bridge recipes from megatron-core 0.16 to 0.19 CUDA-graph keys.

    python migrate_cuda_graph_keys.py recipes/pretrain_full_graph.py recipes/moe_te_graphs.py

What it does to each `cfg.model.<key> = ...` line (nothing else in the file is touched):

  Recipe 1: enable_cuda_graph = True               -> removed (deprecated alias for impl "local")
            cuda_graph_scope = ["full_iteration"]    -> cuda_graph_impl = "full_iteration",
                                                        cuda_graph_scope = None, cuda_graph_modules = []
  Recipe 2: cuda_graph_impl = "transformer_engine"  -> unchanged
            cuda_graph_scope = ["attn", "moe_router"] -> cuda_graph_scope = None,
                                                        cuda_graph_modules = ["attn", "moe_router"]

Why these exact lines:
  * 0.18+ has cuda_graph_impl="full_iteration"; the old local + ["full_iteration"] spelling and
    enable_cuda_graph (-> "local") still load, but only through a deprecation shim, and
    enable_cuda_graph together with any cuda_graph_impl asserts ("Do not use enable_cuda_graph or
    external_cuda_graph with cuda_graph_impl."). So the alias goes, and the impl is written out.
  * A full-iteration graph takes no modules: cuda_graph_modules must stay empty.
  * cuda_graph_scope is still accepted on 0.18+ and migrated to cuda_graph_modules with
    "cuda_graph_scope is deprecated, use cuda_graph_modules instead.", but setting it together with a
    non-empty cuda_graph_modules is an error (TransformerConfig: "cuda_graph_scope and cuda_graph_modules
    cannot be set together."; Megatron-LM CLI: "--cuda-graph-scope and --cuda-graph-modules cannot be
    used together."). Stock Bridge recipes set cuda_graph_scope="full", which is why the codemod writes
    an explicit `cuda_graph_scope = None` next to the new key instead of just deleting the old line.
  * Companions are left as they are and must stay: for the full-iteration recipe
    rerun_state_machine.check_for_nan_in_loss=False and ddp.check_for_nan_in_grad=False (the NaN checks
    sync with the host inside the graph), and model.use_te_rng_tracker / rng.te_rng_tracker = True for
    both recipes. The script warns if it can't find them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import libcst as cst


def _model_key(target: cst.BaseExpression) -> str | None:
    """'cuda_graph_scope' for `cfg.model.cuda_graph_scope`, else None."""
    if (
        isinstance(target, cst.Attribute)
        and isinstance(target.value, cst.Attribute)
        and target.value.attr.value == "model"
    ):
        return target.attr.value
    return None


def _is_full_iteration_list(node: cst.BaseExpression) -> bool:
    return (
        isinstance(node, cst.List)
        and len(node.elements) == 1
        and isinstance(node.elements[0].value, cst.SimpleString)
        and node.elements[0].value.evaluated_value == "full_iteration"
    )


def _assign_line(owner: cst.BaseExpression, key: str, value: str) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine(
        body=[
            cst.Assign(
                targets=[cst.AssignTarget(cst.Attribute(value=owner, attr=cst.Name(key)))],
                value=cst.parse_expression(value),
            )
        ]
    )


class CudaGraphKeys019(cst.CSTTransformer):
    def __init__(self) -> None:
        self.changes: list[str] = []

    def leave_SimpleStatementLine(self, original, updated):
        if len(updated.body) != 1 or not isinstance(updated.body[0], cst.Assign):
            return updated
        assign = updated.body[0]
        if len(assign.targets) != 1:
            return updated
        target = assign.targets[0].target
        key = _model_key(target)
        if key is None:
            return updated
        owner = target.value  # the `cfg.model` expression, reused as written

        if key == "enable_cuda_graph":
            self.changes.append("removed enable_cuda_graph")
            return cst.RemoveFromParent()

        if key == "cuda_graph_scope":
            if _is_full_iteration_list(assign.value):
                self.changes.append('full_iteration scope -> cuda_graph_impl="full_iteration"')
                return cst.FlattenSentinel(
                    [
                        _assign_line(owner, "cuda_graph_impl", '"full_iteration"').with_changes(
                            leading_lines=updated.leading_lines
                        ),
                        _assign_line(owner, "cuda_graph_scope", "None"),
                        _assign_line(owner, "cuda_graph_modules", "[]"),
                    ]
                )
            if isinstance(assign.value, cst.List):
                self.changes.append("cuda_graph_scope -> cuda_graph_modules")
                return cst.FlattenSentinel(
                    [
                        _assign_line(owner, "cuda_graph_scope", "None").with_changes(
                            leading_lines=updated.leading_lines
                        ),
                        _assign_line(owner, "cuda_graph_modules", cst.Module([]).code_for_node(assign.value)),
                    ]
                )
        return updated


class DropStaleLocalImpl(cst.CSTTransformer):
    """After the scope rewrite, a leftover `cuda_graph_impl = "local"` would override "full_iteration"."""

    def __init__(self, has_full_iteration: bool) -> None:
        self.has_full_iteration = has_full_iteration

    def leave_SimpleStatementLine(self, original, updated):
        if not self.has_full_iteration or len(updated.body) != 1:
            return updated
        stmt = updated.body[0]
        if (
            isinstance(stmt, cst.Assign)
            and _model_key(stmt.targets[0].target) == "cuda_graph_impl"
            and isinstance(stmt.value, cst.SimpleString)
            and stmt.value.evaluated_value == "local"
        ):
            return cst.RemoveFromParent()
        return updated


def migrate(path: Path) -> None:
    source = path.read_text()
    tree = cst.parse_module(source)
    keys = CudaGraphKeys019()
    tree = tree.visit(keys)
    full_iter = any("full_iteration" in c for c in keys.changes)
    tree = tree.visit(DropStaleLocalImpl(full_iter))
    new = tree.code
    if new != source:
        path.write_text(new)
    print(f"{path}: {', '.join(keys.changes) or 'no CUDA-graph keys to migrate'}")
    if full_iter and "check_for_nan_in_loss = False" not in new:
        print(f"  WARNING {path}: full-iteration graph needs rerun_state_machine.check_for_nan_in_loss = False")
    if full_iter and "check_for_nan_in_grad = False" not in new:
        print(f"  WARNING {path}: full-iteration graph needs ddp.check_for_nan_in_grad = False")
    if keys.changes and "te_rng_tracker = True" not in new:
        print(f"  WARNING {path}: set model.use_te_rng_tracker = True and rng.te_rng_tracker = True")


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        migrate(Path(arg))
    # Then on 0.19 the log must show no "... is deprecated" warning for these keys.
