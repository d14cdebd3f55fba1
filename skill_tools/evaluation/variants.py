"""Named variants in one Python block: ``VARIANTS = {"selective_te": {**COMMON, "model.x": …},
"full_iteration": {…}}``. Agents write their options this way (a task file, a sweep, a dict of
override sets); each variant is a whole config a user would run, so each is read on its own: the
first as the recommendation, every other as an option beside it (:mod:`alternatives` validates
them like the recommendation). Read with ``ast`` (literals, and ``**NAME`` spreads of module
constants that are literal dicts); nothing is executed.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import Any

from skill_tools.config import pysource
from skill_tools.evaluation.fragments import Block
from skill_tools.evaluation.overrides_dict import _DOTTED, render
from skill_tools.evaluation.polarity import ALTERNATIVE, DESCRIBED

MAX_VARIANTS = 8


def _literal(node: ast.AST) -> tuple[bool, Any]:
    try:
        return True, ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return False, None


def _field_dict(node: ast.AST) -> dict[str, Any] | None:
    """``dict(cuda_graph_impl="local", inference_cuda_graph_scope="block")``: keywords that are all
    fields of a config section, as dotted overrides (``model.`` first); else None."""
    from skill_tools.rules.key_checks import section_keys

    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict"
            and not node.args and node.keywords and all(k.arg for k in node.keywords)):
        return None
    sections = section_keys()
    out: dict[str, Any] = {}
    for kw in node.keywords:
        home = next((s for s in ("model", "rng", "ddp", "train", "optimizer", "inference") if kw.arg in sections.get(s, ())), None)
        ok, value = _literal(kw.value)
        if home is None or not ok:
            return None
        out[f"{home}.{kw.arg}"] = value
    return out


def _dotted_dict(node: ast.AST, consts: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """A dict display of dotted overrides, its ``**NAME`` spreads resolved, else None."""
    fields = _field_dict(node)
    if fields is not None:
        return fields
    if not isinstance(node, ast.Dict) or not node.keys:
        return None
    out: dict[str, Any] = {}
    for k, v in zip(node.keys, node.values):
        if k is None:  # **NAME
            if not (isinstance(v, ast.Name) and v.id in consts):
                return None
            out.update(consts[v.id])
            continue
        if not (isinstance(k, ast.Constant) and isinstance(k.value, str) and _DOTTED.match(k.value)):
            return None
        ok, value = _literal(v)
        if not ok:
            return None
        out[k.value] = value
    return out


_BASE_NAME = re.compile(r"^_?(?:base|common|defaults?|shared|baseline)(?:_\w+)?$", re.I)


def _merged_base(text: str, consts: dict[str, dict[str, Any]], variants: ast.Dict) -> dict[str, Any]:
    """The base every variant is laid over (``merged = {**BASE, **ov}``, ``BASE | ov``,
    ``dict(BASE, **ov)`` in code, or a constant named for it: ``BASE``, ``COMMON_OVERRIDES``) where
    the variants do not spread it themselves; {} when there is none."""
    spread = {v.id for d in variants.values if isinstance(d, ast.Dict)
              for k, v in zip(d.keys, d.values) if k is None and isinstance(v, ast.Name)}
    for name, base in consts.items():
        if name not in spread and (_BASE_NAME.match(name) or
                                   re.search(rf"\*\*{name}\b|\b{name}\s*\|\s*\w|\bdict\(\s*{name}\s*,", text)):
            return base
    return {}


def variant_overrides(text: str) -> list[str]:
    """Hydra override text per variant of the first module-level dict whose values are (two or more)
    dicts of dotted overrides; [] when the block has none."""
    try:
        tree = pysource.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    consts: dict[str, dict[str, Any]] = {}
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        value = node.value
        plain = _dotted_dict(value, consts)
        if plain is not None:
            consts[node.targets[0].id] = plain
            continue
        if isinstance(value, ast.Dict) and len(value.keys) >= 2 and all(
                isinstance(k, ast.Constant) and isinstance(k.value, str) for k in value.keys):
            variants = [_dotted_dict(v, consts) for v in value.values]
            if all(v for v in variants):
                base = _merged_base(text, consts, value)
                variants = [{**base, **v} for v in variants]
                return ["\n".join(f"{k}={render(x)}" for k, x in v.items()) for v in variants[:MAX_VARIANTS]]
    return []


def variant_blocks(block: Block) -> list[Block]:
    """The blocks a Python block's named variants add: the first that runs graphs recommended as the
    block is, the others offered as options (each its own fence group, so options are not merged),
    one with graphs off the eager reference."""
    if block.kind in ("yaml", "json"):
        return _document_variant_blocks(block)
    if block.kind != "python":
        return []
    out = []
    first = True
    for i, text in enumerate(variant_overrides(block.text)):
        if re.search(r"(?m)^model\.cuda_graph_impl=none$", text):  # graphs off: the eager reference
            role, why = DESCRIBED, "the eager reference of the variants"
        else:
            role, why, first = (block.role if first else ALTERNATIVE), block.why, False
        group = block.group if i == 0 else -(block.group * MAX_VARIANTS + i)
        out.append(replace(block, kind="hydra", text=text, role=role, why=why, group=group, keys=[], cfg=None,
                           error=None, diff_new=[]))
    return out


#: A document's mapping of named variants (``variants:``, ``experiments:``, ``runs:`` …) and the
#: section every variant starts from (``common:``, ``base:`` …).
_PARENT_NAMES = r"(?:variants?|experiments?|runs?|arms?|sweeps?|configs|candidates|cases|legs)"
_PARENTS = re.compile(rf"^{_PARENT_NAMES}$", re.I)
_COMMON = ("common", "base", "defaults", "shared")
#: One of those names written as a key, anywhere in the text (a cheap test before parsing it).
_PARENT_KEY = re.compile(rf"\b{_PARENT_NAMES}[\"']?\s*:", re.I)


def _merged(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        out[k] = _merged(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def document_variants(text: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``(common, [variant, …])`` of a YAML/JSON document that names its runs (an experiment file:
    ``common:`` plus ``variants: {v0_eager: {model: …}, v1_attn: {model: …}}``, or a list of runs
    ``experiments: [{name: a0, model.cuda_graph_impl: …}, …]``), each variant's config merged over the
    common section; ``({}, [])`` for any other document."""
    from skill_tools.config import limits
    from skill_tools.config.model import SECTIONS

    if not _PARENT_KEY.search(text):
        return {}, []  # no key that names runs: not worth a YAML parse (every unfenced answer is tried)
    try:
        data = limits.load_yaml(text, "<variants>")[0]
    except Exception:  # not one YAML document: no variants
        return {}, []
    if not isinstance(data, dict):
        return {}, []

    def config_of(v: Any) -> dict[str, Any] | None:  # its config sections, dotted keys nested ("model.x: 1")
        if not isinstance(v, dict):
            return None
        out: dict[str, Any] = {}
        for k, val in v.items():
            path = str(k).split(".")
            if path[0] not in SECTIONS:
                continue  # a run's name, its expectation, its container: not config
            node = out
            for part in path[:-1]:
                node = node.setdefault(part, {})
            node[path[-1]] = _merged(node.get(path[-1], {}), val) if isinstance(val, dict) else val
        return out or None

    common = next((config_of(data[c]) or {} for c in _COMMON if isinstance(data.get(c), dict)), {})
    for key, value in data.items():
        runs = list(value.values()) if isinstance(value, dict) else value if isinstance(value, list) else []
        configs = [config_of(v) for v in runs]
        if _PARENTS.match(str(key)) and len(configs) >= 2 and all(configs):
            return common, [_merged(common, c) for c in configs[:MAX_VARIANTS]]
    return {}, []


_YAML_DOCUMENTS = re.compile(r"(?m)^---[ \t]*(?:#.*)?$")
_HAS_CONTENT = re.compile(r"(?m)^[ \t]*[^#\s]")  # a line that is not a comment


def _document_variant_blocks(block: Block) -> list[Block]:
    """The documents of a multi-document YAML (the first as the block's recommendation, the others
    as options); else the common section of a variants file as the block's recommendation, and every
    variant that runs graphs as an option beside it (each its own group); a variant that turns
    graphs off is the eager reference."""
    import json

    documents = [d for d in _YAML_DOCUMENTS.split(block.text) if _HAS_CONTENT.search(d)] if block.kind == "yaml" else []
    if len(documents) >= 2:  # "Pick ONE of the documents below": the first recommended, each later one an option
        return [replace(block, text=d, role=block.role if i == 0 else ALTERNATIVE,
                        why=block.why if i == 0 else "a later document of a multi-document YAML",
                        group=block.group if i == 0 else -(block.group * MAX_VARIANTS + i), keys=[], cfg=None,
                        error=None, diff_new=[]) for i, d in enumerate(documents[:MAX_VARIANTS])]
    common, variants = document_variants(block.text)
    if not variants:
        return []
    out = [replace(block, kind="json", text=json.dumps(common), keys=[], cfg=None, error=None, diff_new=[])]
    for i, variant in enumerate(variants, 1):
        off = str((variant.get("model") or {}).get("cuda_graph_impl", "none")).lower() == "none"
        out.append(replace(block, kind="json", text=json.dumps(variant), role=DESCRIBED if off else ALTERNATIVE,
                           why="the eager reference of a variants file" if off else "a variant of a variants file",
                           group=-(block.group * MAX_VARIANTS + i), keys=[], cfg=None, error=None, diff_new=[]))
    return out


#: A bash associative array of runs: ``declare -A VARIANTS=( [A_eager]="model.x=none" [B]="…" )``.
_SHELL_ARRAY = re.compile(r"^[ \t]*(?:declare|typeset|local)[ \t]+-A[ \t]+\w+[ \t]*=[ \t]*\((.*?)^[ \t]*\)", re.M | re.S)
_SHELL_ENTRY = re.compile(r"\[([^\]\n]+)\][ \t]*=[ \t]*(?:\"([^\"]*)\"|'([^']*)'|(\S+))")


def shell_variant_dict(body: str) -> str | None:
    """A bash script's associative array of runs, each a string of Hydra overrides, as the Python
    ``VARIANTS = {name: {dotted key: value}}`` it means (read by :func:`variant_overrides` like any
    other variants dict); None without one. Values are parsed as Hydra reads them; nothing is run."""
    import shlex

    from skill_tools.config.read_flags import scalar

    m = _SHELL_ARRAY.search(body)
    if not m:
        return None
    runs: dict[str, dict[str, Any]] = {}
    for entry in _SHELL_ENTRY.finditer(m.group(1)):
        text = next(g for g in entry.groups()[1:] if g is not None)
        try:
            tokens = shlex.split(text)
        except ValueError:
            return None
        pairs = [t.split("=", 1) for t in tokens if "=" in t and _DOTTED.match(t.split("=", 1)[0])]
        if pairs:
            runs[entry.group(1).strip("'\"")] = {k: scalar(v) for k, v in pairs}
    return f"VARIANTS = {runs!r}\n" if len(runs) >= 2 else None
