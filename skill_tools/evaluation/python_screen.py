"""The screen of Python an answer writes: constructs that reach past a config (a dangerous import
or call, an interpreter internal) keep the block from being read. Nothing is run either way; the
screen decides only whether a reader may see the text. Parsed with ``ast``.
"""

from __future__ import annotations

import ast
import re

from skill_tools.config import pysource
from skill_tools.evaluation.launchers import launcher_calls

_DANGER_MODULES = frozenset({"subprocess", "shutil", "socket", "pickle", "marshal", "importlib", "ctypes",
                             "builtins", "pty", "requests", "urllib", "http", "runpy", "code", "codeop"})

_DANGER_CALLS = frozenset({"eval", "exec", "compile", "open", "__import__", "getattr", "setattr", "delattr",
                           "globals", "locals", "vars", "input", "breakpoint", "exit", "quit"})

_OS_SAFE_ATTRS = frozenset({"environ", "path", "getenv", "sep"})


def python_hazard(text: str) -> tuple[str, int] | None:
    """(what, line within the block) of the first construct that reaches past a config (a dangerous
    import or call, an interpreter internal), or None; code that does not parse is the reader's to report."""
    try:
        tree = pysource.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    benign = _plain_attribute_calls(tree) | _config_file_opens(tree)
    launches = launcher_calls(tree)  # subprocess.run(["torchrun", …]): a launch written down, read, never run
    for node in ast.walk(tree):
        bad: str | None = None
        if isinstance(node, (ast.Name, ast.Attribute)) and (id(node) in benign or id(node) in launches["nodes"]):
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            hit = [n for n in names if n.split(".")[0] in _DANGER_MODULES and n.split(".")[0] not in launches["modules"]
                   and not n.startswith("importlib.metadata")]  # version lookups read package metadata
            bad = f"import of {hit[0]}" if hit else None
        elif isinstance(node, ast.Name) and (node.id in _DANGER_CALLS or _dunder(node.id)):
            bad = f"use of {node.id}"
        elif isinstance(node, ast.Attribute):
            base = node.value.id if isinstance(node.value, ast.Name) else None
            if _dunder(node.attr):
                bad = f"attribute {node.attr}"
            elif (base in _DANGER_MODULES and (base, node.attr) != ("importlib", "metadata")) or (base == "os" and node.attr not in _OS_SAFE_ATTRS):
                bad = f"call into {base}.{node.attr}"
        if bad:
            return bad, getattr(node, "lineno", 1)
    return None


_CONFIG_FILE = re.compile(r"^(?![/~])(?!.*\.\.)[\w./-]+\.(?:ya?ml|json|toml|py|sh|txt|cfg|ini)$")


def _config_file_opens(tree: ast.AST) -> set[int]:
    """``open`` names of calls that open a config file of the workspace by a relative path
    (``yaml.load(open("llama32_1b_pretrain.yaml"))``, ``open(path, "w")`` with ``path = "recipe.yaml"``):
    an edit script's read and write of the file it edits, not a reach outside the task."""
    consts = {t.id: n.value.value for n in ast.walk(tree) if isinstance(n, ast.Assign)
              for t in n.targets if isinstance(t, ast.Name) and isinstance(n.value, ast.Constant)
              and isinstance(n.value.value, str)}
    out = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "open" and node.args):
            continue
        path = node.args[0]
        name = path.value if isinstance(path, ast.Constant) else consts.get(path.id) if isinstance(path, ast.Name) else None
        modes = [a for a in node.args[1:2]] + [k.value for k in node.keywords if k.arg == "mode"]
        if isinstance(name, str) and _CONFIG_FILE.match(name) and all(
                isinstance(m, ast.Constant) and m.value in ("r", "w", "rt", "wt", "a", "r+") for m in modes):
            out.add(id(node.func))
    return out


def _plain_attribute_calls(tree: ast.AST) -> set[int]:
    """``getattr``/``setattr`` names used only to set a config field by a plain name
    (``setattr(getattr(cfg, section), name, value)``, an agent's way to apply a dict of dotted
    overrides; ``getattr(cfg, "x", None)`` with a literal default): the object is a name, an attribute
    chain or such a call, and the field name is a variable or a string without a leading underscore. Nothing is run either way; these are not
    an attempt to reach interpreter internals, so the block is read. So is a script's
    ``if __name__ == "__main__":`` guard."""
    def plain_object(n: ast.AST) -> bool:
        if isinstance(n, ast.Name):
            return not _dunder(n.id) and n.id not in _DANGER_CALLS
        if isinstance(n, ast.Attribute):
            return not n.attr.startswith("_") and plain_object(n.value)
        return isinstance(n, ast.Call) and is_plain(n)

    def is_plain(call: ast.Call) -> bool:
        f = call.func
        if not (isinstance(f, ast.Name) and f.id in ("getattr", "setattr") and not call.keywords):
            return False
        if len(call.args) not in ((3,) if f.id == "setattr" else (2, 3)):
            return False
        if f.id == "getattr" and len(call.args) == 3 and not (isinstance(call.args[2], ast.Constant) or plain_object(call.args[2])):
            return False  # getattr(cfg, "x", None) / getattr(m, "name", m): a literal or plain default only
        field = call.args[1]
        named = isinstance(field, ast.Name) or (isinstance(field, ast.Constant) and isinstance(field.value, str)
                                                and not field.value.startswith("_"))
        return named and plain_object(call.args[0])

    def main_guard(n: ast.AST) -> bool:  # if __name__ == "__main__": (compared, never called)
        return (isinstance(n, ast.Compare) and isinstance(n.left, ast.Name) and n.left.id == "__name__"
                and len(n.comparators) == 1 and isinstance(n.comparators[0], ast.Constant)
                and n.comparators[0].value == "__main__")

    return ({id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call) and is_plain(n)}
            | {id(n.left) for n in ast.walk(tree) if main_guard(n)})


#: Dunder names that are plain data ("print(megatron.core.__version__)"), never a way out of a sandbox.
_DATA_DUNDERS = frozenset({"__version__", "__name__", "__file__", "__doc__"})


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__") and len(name) > 4 and name not in _DATA_DUNDERS
