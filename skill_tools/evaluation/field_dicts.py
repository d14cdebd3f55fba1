"""Python dicts of bare config fields, read as the settings they hold.

Agents often hand over their settings as a named dict without saying where it goes:
``GRAPH_OVERRIDES = {"cuda_graph_impl": "transformer_engine", "cuda_graph_modules": ["attn"]}`` (or
``dict(cuda_graph_impl="transformer_engine", …)``),
or one dict per era (``LEGACY_016_017 = {...}``, ``CURRENT_018 = {...}``), sometimes typed with a
``TypedDict``. Keys without a section (not ``model.x``) are not Hydra overrides, so the dotted
reader does not take them, and nothing assigns them to ``cfg``. :func:`field_dicts` reads such a
dict when every key is a field of the config (each placed in the one section that has it, the
model section first) and one of them is a CUDA-graph key; values are literals or module-level
constants (``ast``, never run). The dict's name says its era ("016", "legacy" / "019", "current")
and whether it is the thing to avoid ("before", "old", "bad", "wrong", "broken").
"""

from __future__ import annotations

import ast
import re
from typing import Any, Iterator

from skill_tools.config import pysource
from skill_tools.config.python_literals import constants as _constants, literal
from skill_tools.evaluation.fragments import COUNTEREXAMPLE, Block
from skill_tools.evaluation.overrides_dict import render

_LEGACY_NAME = re.compile(r"(?:^|_)(?:v?0?_?1[67](?:_|$)|0?16|0?17|legacy|old_api|pre_?018)", re.I)
_CURRENT_NAME = re.compile(r"(?:^|_)(?:v?0?_?1[89](?:_|$)|0?18|0?19|current|new_api)", re.I)
_AVOID_NAME = re.compile(r"(?:^|_)(?:before|bad|wrong|broken|old|failing|original)(?:_|$)", re.I)
_ORDER = ("model", "rng", "ddp", "rerun_state_machine", "optimizer", "train", "dataset", "comm_overlap")


def field_dicts(source: str) -> Iterator[tuple[str, str | None, bool, str, int]]:
    """(name, era or None, to avoid, Hydra override lines, line) for each such dict in ``source``."""
    try:
        tree = pysource.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    consts = _constants(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict" \
                and not value.args and all(kw.arg for kw in value.keywords) \
                and {kw.arg for kw in value.keywords} & {"cuda_graph_modules", "cuda_graph_scope", "cuda_graph_impl",
                                                         "inference_cuda_graph_scope"} \
                and not _extended(target, source):
            value = ast.Dict(keys=[ast.Constant(kw.arg) for kw in value.keywords],  # CFG = dict(x=1, …)
                             values=[kw.value for kw in value.keywords])
        if not (isinstance(target, ast.Name) and isinstance(value, ast.Dict)):
            continue
        ok, data = literal(value, consts)
        lines = _as_overrides(data) if ok and isinstance(data, dict) else None
        if lines:
            name = target.id
            era = "legacy" if _LEGACY_NAME.search(name) and not _CURRENT_NAME.search(name) else \
                "current" if _CURRENT_NAME.search(name) and not _LEGACY_NAME.search(name) else None
            yield name, era, bool(_AVOID_NAME.search(name)), lines, node.lineno


def _extended(target: ast.AST, source: str) -> bool:
    """``BASE = dict(…)`` that other dicts extend (``dict(BASE, x=1)``, ``{**BASE, …}``, ``BASE | {…}``):
    a base, not the settings themselves."""
    if not isinstance(target, ast.Name):
        return False
    name = re.escape(target.id)
    return bool(re.search(rf"\bdict\(\s*{name}\s*[,)]|\*\*{name}\b|\b{name}\s*\||\b{name}\.copy\(|deepcopy\(\s*{name}\s*\)",
                          source))


def _as_overrides(data: dict[str, Any]) -> str | None:
    from skill_tools.rules.key_checks import section_keys

    sections = section_keys()
    keys = [k for k in data if isinstance(k, str)]
    if len(keys) != len(data) or len(keys) < 2 or not any("cuda_graph" in k for k in keys):
        return None
    out = []
    for key in keys:
        section = next((s for s in _ORDER if key in sections.get(s, ())), None)
        if section is None:
            return None  # a key of no section: not a config dict
        out.append(f"{section}.{key}={render(data[key])}")
    return "\n".join(out)


def field_dict_blocks(body: str, line: int, role: str) -> Iterator[Block]:
    """One Hydra block per field dict of a fenced Python block, with its era and polarity."""
    for name, era, avoid, lines, at in field_dicts(body):
        block = Block("hydra", lines, line + at - 1, "fenced", COUNTEREXAMPLE if avoid else role)
        block.era, block.why = era, f"the dict {name} of config fields" + ("; its name says to avoid it" if avoid else "")
        yield block
