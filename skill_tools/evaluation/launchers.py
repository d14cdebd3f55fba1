"""Launcher wrappers in an answer's Python: ``subprocess.run(["torchrun", "pretrain_gpt.py", …])`` or
``os.execvp(argv[0], argv)`` with ``argv = ["python", "run_recipe.py", …]``. Agents post these to
show how a training run is started; the command is data (a list of constant strings whose first
word is a constant training launcher, no ``shell=True``), so the security screen lets exactly these calls
through and the config they carry is read. Any other call into ``subprocess`` or ``os`` (``touch``,
``rm``, a shell, a computed command) is still refused. Parsed with ``ast``; nothing is run.
"""

from __future__ import annotations

import ast
import os
from typing import Any

#: Programs that start training or inference; a shell (``bash -c``) is not one of them.
LAUNCHERS = frozenset({"python", "python3", "torchrun", "srun", "mpirun", "deepspeed", "accelerate", "nsys", "uv"})
_CALLS = {"subprocess": frozenset({"run", "call", "check_call", "check_output", "Popen"}),
          "os": frozenset({"execvp", "execv", "execvpe", "execve"})}


def _argv(node: ast.AST, lists: dict[str, list[str]]) -> list[str] | None:
    """The constant argv a call receives: a list literal, a name bound to one, or ``argv[0]``'s list."""
    if isinstance(node, (ast.List, ast.Tuple)):
        # The program is a constant; its arguments may be computed (``env.get("NPROC", "8")``,
        # ``*sys.argv[1:]``): they are data handed to that program, never a shell.
        first = node.elts[0] if node.elts else None
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return None
    if isinstance(node, ast.Name):
        return lists.get(node.id)
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        return lists.get(node.value.id)
    return None


def launcher_calls(tree: ast.AST) -> dict[str, Any]:
    """``{"nodes": ids of the subprocess/os names of launcher calls, "modules": modules used only so}``."""
    lists: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            argv = _argv(node.value, {})
            if argv:
                lists[node.targets[0].id] = argv
    allowed: set[int] = set()
    used: dict[str, bool] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in _CALLS):
            continue
        module = node.value.id
        ok = False
        call = next((c for c in ast.walk(tree) if isinstance(c, ast.Call) and c.func is node), None)
        if call is not None and node.attr in _CALLS[module] and call.args:
            argv = _argv(call.args[1] if module == "os" and len(call.args) > 1 else call.args[0], lists)  # execvpe(file, args, env)
            shell = any(k.arg == "shell" and not (isinstance(k.value, ast.Constant) and k.value.value is False)
                        for k in call.keywords)
            ok = bool(argv) and os.path.basename(argv[0]) in LAUNCHERS and not shell
        if ok:
            allowed |= {id(node), id(node.value)}
        used[module] = used.get(module, True) and ok
    return {"nodes": allowed, "modules": {m for m, only in used.items() if only}}
