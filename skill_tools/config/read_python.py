"""Python recipe snippets, parsed with :mod:`ast` and never executed: ``cfg.model.x = v``
assignments (containers and model objects under their usual names) and ``TransformerConfig(...)``
/ ``*Provider(...)`` keywords. :func:`python_key` is shared with the in-place editor."""

from __future__ import annotations

import ast
import re
from typing import Any, Iterable, Iterator

from skill_tools.config import limits, pysource
from skill_tools.config.python_literals import attr_chain, literal
from skill_tools.config.python_literals import constants as _constants
from skill_tools.config.model import SECTIONS, CanonicalConfig, Location
from skill_tools.errors import InputError

#: Names a Python snippet may use for the ConfigContainer (``cfg.model.x = ...``).
CONTAINER_NAMES = {"cfg", "config", "recipe", "c", "conf", "container", "config_container", "self"}
MODEL_OBJECT_NAMES = {"model", "model_cfg", "model_config", "provider", "transformer_config", "tc"}
#: Calls whose keywords are model fields.
MODEL_CALL = re.compile(r"(TransformerConfig|ModelProvider|Provider\w*|ModelConfig)$")
#: Config objects of the other sections, as megatron-core and Bridge name their classes.
SECTION_CALLS = {"InferenceConfig": "inference", "DistributedDataParallelConfig": "ddp", "OptimizerConfig": "optimizer",
                 "RNGConfig": "rng", "RerunStateMachineConfig": "rerun_state_machine", "CommOverlapConfig": "comm_overlap"}


def read_python(text: str, source: str) -> CanonicalConfig:
    try:
        tree = pysource.parse(text, source)
    except SyntaxError as exc:
        raise InputError(source, f"Python syntax error: {exc.msg}", line=exc.lineno,
                         hint="the snippet is parsed, never executed; fix the syntax") from None
    except (MemoryError, RecursionError):
        raise InputError(source, "Python expression too deeply nested to parse; not a config",
                         hint="the snippet is parsed, never executed") from None
    cfg = CanonicalConfig(source=source, fmt="python")
    refused = _refused_calls(tree)
    consts = _constants(tree)
    mappings = _named_mappings(tree, consts)
    aliases = _section_aliases(tree)
    for name, value in consts.items():
        if _env_mapping(value):  # REQUIRED_ENV = {"NCCL_GRAPH_REGISTER": "0", …}, later put into the process environment
            cfg.env.update({k: str(v) for k, v in value.items()})
    shadowed = _else_shadowed(tree)
    for node in ast.walk(tree):
        if id(node) in shadowed:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and node.value.bit_length() > 4 * limits.MAX_INT_DIGITS:
            raise InputError(source, f"integer literal of about {int(node.value.bit_length() * 0.30103)} digits "
                                     f"(limit {limits.MAX_INT_DIGITS}); not a config value", line=node.lineno)
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if node.value is None:
                continue
            for target in targets:
                for tgt, val in _pairs(target, node.value):
                    _python_assign(cfg, tgt, val, source, aliases, consts)
        elif isinstance(node, ast.Call) and id(node) not in refused:
            _python_call(cfg, node, source, mappings, consts)
            _update_call(cfg, node, source, aliases, mappings, consts)
            _environ_call(cfg, node)
            _setattr_call(cfg, node, source, aliases, tree)
        elif isinstance(node, ast.For):
            _setattr_loop(cfg, node, source, aliases, tree)
    for key, value, line in _omitted_defaults(tree):
        if not cfg.has(key):
            cfg.set(key, value, Location(source, line))
    return cfg


#: Fields whose class default changes what runs, taken when a constructor call leaves them out:
#: InferenceConfig.num_cuda_graphs is None by default, and None builds no decode graph
#: (megatron/core/inference/config.py l.189 @core_v0.17.0, l.216 @core_v0.19.0).
CALL_DEFAULTS = {"InferenceConfig": {"inference.num_cuda_graphs": None}}


def _callee(node: ast.Call) -> str:
    """The called name's last part: ``InferenceConfig`` of ``core.InferenceConfig(...)``."""
    return (node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")) or ""


def _omitted_defaults(tree: ast.AST) -> Iterator[tuple[str, Any, int]]:
    """(key, class default, line) of each such field a constructor call leaves out (a call that
    unpacks ``**kwargs`` may pass it, and is left alone)."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        written = {kw.arg for kw in node.keywords}
        if None in written:
            continue
        for key, value in CALL_DEFAULTS.get(_callee(node), {}).items():
            if key.rpartition(".")[2] not in written:
                yield key, value, node.lineno


#: Environment variables of the libraries a training run reads (NCCL, PyTorch, CUDA, Transformer Engine, …).
_ENV_NAME = re.compile(r"^(?:NCCL|PYTORCH|TORCH|CUDA|NVTE|NVIDIA|CUBLAS|CUDNN|OMP|UB|MEGATRON)_[A-Z0-9_]+$")


def _env_mapping(value: Any) -> bool:
    """A module constant that maps only such variable names to scalars: the environment a launcher
    exports (it is a table of the process environment, not of config fields)."""
    return isinstance(value, dict) and bool(value) and all(
        isinstance(k, str) and _ENV_NAME.match(k) and isinstance(v, (str, int, float, bool)) for k, v in value.items())


def _else_shadowed(tree: ast.AST) -> set[int]:
    """Assignments in an ``else:`` branch to what its ``if`` branch also assigns (``if graphs: impl =
    "transformer_engine" else: impl = "none"``): the ``if`` branch is the config the code is about,
    the other the way back; read in order, the way back would win."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.If) and node.orelse):
            continue
        body = {ast.unparse(t) for n in node.body for a in ast.walk(n) if isinstance(a, ast.Assign) for t in a.targets}
        out |= {id(a) for n in node.orelse for a in ast.walk(n)
                if isinstance(a, ast.Assign) and any(ast.unparse(t) in body for t in a.targets)}
    return out


def _setattr_to(cfg: CanonicalConfig, target: ast.AST, name: Any, value: Any, source: str, line: int | None,
                aliases: dict[str, list[str]] | None) -> None:
    chain = attr_chain(target) or []
    if aliases and chain and chain[0] in aliases:
        chain = aliases[chain[0]] + chain[1:]
    key = python_key(chain + [name]) if chain and isinstance(name, str) and name.isidentifier() else None
    if key is not None:
        cfg.set(key, value, Location(source, line))


def _setattr_call(cfg: CanonicalConfig, node: ast.Call, source: str, aliases: dict[str, list[str]] | None,
                  tree: ast.AST) -> None:
    """``setattr(cfg.model, "cuda_graph_impl", "local")``, the name also a module constant: an assignment."""
    if not (isinstance(node.func, ast.Name) and node.func.id == "setattr" and len(node.args) == 3):
        return
    name_node, value_node = node.args[1], node.args[2]
    name = name_node.value if isinstance(name_node, ast.Constant) else \
        _constants(tree).get(name_node.id) if isinstance(name_node, ast.Name) else None
    ok, value = literal(value_node)
    if ok:
        _setattr_to(cfg, node.args[0], name, value, source, node.lineno, aliases)


def _setattr_loop(cfg: CanonicalConfig, node: ast.For, source: str, aliases: dict[str, list[str]] | None,
                  tree: ast.AST) -> None:
    """``for k, v in OVERRIDES.items(): setattr(cfg.model, k, v)`` over a literal (or constant) dict."""
    it, tgt = node.iter, node.target
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr == "items"
            and isinstance(tgt, ast.Tuple) and len(tgt.elts) == 2 and all(isinstance(e, ast.Name) for e in tgt.elts)):
        return
    base = it.func.value
    ok, mapping = literal(base) if isinstance(base, ast.Dict) else \
        (True, _constants(tree).get(base.id)) if isinstance(base, ast.Name) else (False, None)
    if not ok or not isinstance(mapping, dict):
        return
    k_name, v_name = (e.id for e in tgt.elts)
    for stmt in node.body:
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "setattr" \
                and len(call.args) == 3 and getattr(call.args[1], "id", None) == k_name \
                and getattr(call.args[2], "id", None) == v_name:
            for name, value in mapping.items():
                _setattr_to(cfg, call.args[0], name, value, source, call.lineno, aliases)


def _environ_call(cfg: CanonicalConfig, node: ast.Call) -> None:
    """``os.environ.setdefault("K", "v")``, ``os.environ.update(K="v")`` / ``({"K": "v"})`` and
    ``os.putenv("K", "v")``: the process environment, as ``os.environ["K"] = "v"`` is."""
    chain = attr_chain(node.func) or []
    pairs: list[tuple[Any, Any]] = []
    if chain in (["os", "environ", "setdefault"], ["os", "putenv"]) and len(node.args) == 2:
        pairs.append((node.args[0], node.args[1]))
    elif chain == ["os", "environ", "update"]:
        pairs += [(ast.Constant(kw.arg), kw.value) for kw in node.keywords if kw.arg]
        for arg in node.args[:1]:
            if isinstance(arg, ast.Dict):
                pairs += [(k, v) for k, v in zip(arg.keys, arg.values) if k is not None]
    for k, v in pairs:
        ok, value = literal(v)
        if isinstance(k, ast.Constant) and isinstance(k.value, str) and ok:
            cfg.env[k.value] = str(value)


#: Context managers that expect the code inside them to fail: a config built there is refused.
_RAISES = re.compile(r"(?:^|\.)(?:raises|assertRaises|assertRaisesRegex)$")


def _refused_calls(tree: ast.AST) -> set[int]:
    """Calls inside ``with pytest.raises(...)`` (a test that shows a config being refused)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.With, ast.AsyncWith)) and any(
                isinstance(item.context_expr, ast.Call) and _RAISES.search(".".join(attr_chain(item.context_expr.func) or [
                    getattr(item.context_expr.func, "id", "")])) for item in node.items):
            out.update(id(n) for stmt in node.body for n in ast.walk(stmt) if isinstance(n, ast.Call))
    return out


def _named_mappings(tree: ast.AST, consts: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """Module-level ``BASE = dict(k=v, ...)`` / ``BASE = {"k": v}``: what ``Config(**BASE)`` passes."""
    out: dict[str, dict[str, Any]] = {}
    for node in getattr(tree, "body", []):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        value = node.value
        if isinstance(value, ast.Call) and getattr(value.func, "id", None) == "dict" and not value.args:
            out[node.targets[0].id] = {name: v for name, v, _ in _keyword_literals(value, consts)}
        elif isinstance(value, ast.Dict):
            ok, v = literal(value, consts)
            if ok and all(isinstance(k, str) for k in v):
                out[node.targets[0].id] = v
    return out


def _pairs(target: ast.AST, value: ast.AST) -> Iterable[tuple[ast.AST, ast.AST]]:
    """``a.x = b.y = v`` and ``a.x, a.y = v1, v2`` as (target, value) pairs."""
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) and len(target.elts) == len(value.elts):
        for t, v in zip(target.elts, value.elts):
            yield from _pairs(t, v)
    elif isinstance(target, ast.Name) and pysource.bare_one_tuple(value):
        yield target, value.elts[0]  # type: ignore[attr-defined]
    else:
        yield target, value


def _subscript_chain(node: ast.AST) -> list[str] | None:
    """``cfg.dataset.dataset_kwargs["pad_to_max_length"]`` as the chain of an attribute path and
    string keys (``["cfg", "dataset", "dataset_kwargs", "pad_to_max_length"]``); None otherwise."""
    keys: list[str] = []
    while isinstance(node, ast.Subscript):
        if not (isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
            return None
        keys.append(node.slice.value)
        node = node.value
    chain = attr_chain(node) if keys else None
    return chain + keys[::-1] if chain else None


def python_key(chain: list[str]) -> str | None:
    root, rest = chain[0], chain[1:]
    if root in SECTIONS and rest:
        return ".".join(chain)
    if not rest:
        return None
    if rest[0] in SECTIONS and len(rest) > 1:
        return ".".join(rest)
    if root in MODEL_OBJECT_NAMES or root in CONTAINER_NAMES:
        return "model." + ".".join(rest)
    return None


def _section_aliases(tree: ast.AST) -> dict[str, list[str]]:
    """``m = cfg.model`` / ``ddp = config.ddp`` / ``ic = InferenceConfig(…)``: names that stand for a
    config section, so that ``m.cuda_graph_impl = "full_iteration"`` is ``model.cuda_graph_impl``."""
    out: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            chain = attr_chain(node.value)
            name = node.targets[0].id
            if isinstance(node.value, ast.Call) and _callee(node.value) in SECTION_CALLS:
                out[name] = [SECTION_CALLS[_callee(node.value)]]
                continue
            if chain and len(chain) >= 2 and name not in CONTAINER_NAMES | MODEL_OBJECT_NAMES \
                    and python_key(chain + ["x"]) is not None:
                out[name] = chain
    return out


def _python_assign(cfg: CanonicalConfig, target: ast.AST, value: ast.AST, source: str,
                   aliases: dict[str, list[str]] | None = None, consts: dict[str, Any] | None = None) -> None:
    line = getattr(target, "lineno", None)
    if isinstance(target, ast.Subscript):
        chain = attr_chain(target.value)
        key = target.slice
        if chain == ["os", "environ"] and isinstance(key, ast.Constant) and isinstance(key.value, str):
            ok, v = literal(value)
            if ok:
                cfg.env[key.value] = str(v)
            return
    chain = attr_chain(target) or _subscript_chain(target)
    if not chain:
        return
    if aliases and chain[0] in aliases and len(chain) > 1:
        chain = aliases[chain[0]] + chain[1:]
    if isinstance(value, ast.Call) and (attr_chain(value.func) or [""])[-1] in ("replace", "evolve") and value.args \
            and (attr_chain(value.args[0]) or []) == (attr_chain(target) or [None]):
        for name, v, line in _keyword_literals(value, consts):  # cfg.model = dataclasses.replace(cfg.model, k=v, ...)
            key = python_key(chain + [name])
            if key is not None:
                cfg.set(key, v, Location(source, line))
        return
    key = python_key(chain)
    if key is None:
        return
    callee = (attr_chain(value.func) or [""])[-1] if isinstance(value, ast.Call) else ""
    if callee[:1].isupper() and not MODEL_CALL.search(callee) and not value.args and value.keywords:  # x = Specs(k=v)
        for name, v, line in _keyword_literals(value, consts):
            cfg.set(f"{key}.{name}", v, Location(source, line))
        return
    ok, v = literal(value, consts)
    if ok:
        cfg.set(key, v, Location(source, line))
    else:
        cfg.unparsed.append(f"{source}:{line}: {'.'.join(chain)} = <not a literal: {ast.unparse(value)[:60]}>")


def _python_call(cfg: CanonicalConfig, node: ast.Call, source: str,
                 mappings: dict[str, dict[str, Any]] | None = None, consts: dict[str, Any] | None = None) -> None:
    """``TransformerConfig(cuda_graph_impl="local", ...)`` / ``GPTModelProvider(...)`` keywords (and
    ``InferenceConfig(...)``, ``DistributedDataParallelConfig(...)``: their sections'), and those of a
    module-level mapping it unpacks (``TransformerConfig(**BASE, ...)``)."""
    name = _callee(node)
    section = "model" if MODEL_CALL.search(name) else SECTION_CALLS.get(name)
    if section is None:
        return
    for kw in node.keywords:
        if kw.arg is None:
            for key, v in (mappings or {}).get(getattr(kw.value, "id", ""), {}).items():
                cfg.set(f"{section}.{key}", v, Location(source, kw.value.lineno))
            continue
        ok, v = literal(kw.value, consts)
        if ok:
            cfg.set(f"{section}.{kw.arg}", v, Location(source, kw.value.lineno))


def _update_call(cfg: CanonicalConfig, node: ast.Call, source: str, aliases: dict[str, list[str]] | None,
                 mappings: dict[str, dict[str, Any]], consts: dict[str, Any]) -> None:
    """``cfg.model.update({"k": v})``, ``(dict(k=v))``, ``(k=v)`` or ``(OVERRIDES)`` (a module-level
    mapping): each key set on that section, as ``cfg.model.k = v`` is."""
    if not (isinstance(node.func, ast.Attribute) and node.func.attr == "update"):
        return
    chain = attr_chain(node.func.value) or []
    if aliases and chain and chain[0] in aliases:
        chain = aliases[chain[0]] + chain[1:]
    if not chain or chain[:2] == ["os", "environ"] or python_key(chain + ["x"]) is None:
        return
    pairs: dict[str, Any] = {}
    for arg in node.args[:1]:
        if isinstance(arg, ast.Call) and getattr(arg.func, "id", None) == "dict" and not arg.args:
            pairs.update({name: v for name, v, _ in _keyword_literals(arg, consts)})
            continue
        ok, mapping = literal(arg, consts) if not isinstance(arg, ast.Name) else (arg.id in mappings, mappings.get(arg.id))
        if ok and isinstance(mapping, dict):
            pairs.update(mapping)
    pairs.update({name: v for name, v, _ in _keyword_literals(node, consts)})
    for name, value in pairs.items():
        key = python_key(chain + [name]) if isinstance(name, str) and name.isidentifier() else None
        if key is not None:
            cfg.set(key, value, Location(source, node.lineno))


def _keyword_literals(call: ast.Call, consts: dict[str, Any] | None) -> list[tuple[str, Any, int]]:
    """(name, value, line) of each named keyword of ``call`` whose value is a literal (``**x`` skipped)."""
    out = []
    for kw in call.keywords:
        ok, v = literal(kw.value, consts)
        if kw.arg is not None and ok:
            out.append((kw.arg, v, kw.value.lineno))
    return out
