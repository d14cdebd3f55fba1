"""Config cases out of upstream unit tests, each with the verdict the test asserts.

A test function is read top to bottom (``ast``, never run). Config objects it builds are tracked:
megatron-core configs (``TransformerConfig(...)``, ``MLATransformerConfig``, module-level factories
such as ``_base_cuda_graph_config(**kw)`` or Bridge's ``create_test_gpt_config``), Bridge containers
(``create_test_config_container(model_config=...)``, ``ConfigContainer(...)``) and their later
attribute assignments (``container.model.cuda_graph_scope = [...]``). Each point where upstream's
checks run (the constructor, ``.validate()``, ``.finalize()``) is a snapshot; a Megatron-LM argument
list (``['--cuda-graph-impl', 'local', ...]``) is a launch snapshot. A snapshot inside
``pytest.raises(E, match=M)`` is upstream rejecting the config with ``E``/``M``; otherwise upstream
accepts it. ``pytest.mark.parametrize`` values are substituted. Only snapshots that set a CUDA-graph
key are kept; a graph key the harvester cannot read makes the snapshot *unconverted*, listed with
its reason.
"""

from __future__ import annotations

import ast
import itertools
import re
from dataclasses import dataclass, field
from typing import Any, Iterator

from literal import Unresolved, call_name, chain, value

GRAPH_KEY = re.compile(r"cuda_graph|cuda-graph|enable_cuda_graph|external_cuda_graph")
CONFIG_CALL = re.compile(r"^(\w*TransformerConfig|ModelParallelConfig|\w+Provider\w*|create_test_\w*config)$")
#: megatron-core's own config classes: their constructor runs the checks (``__post_init__``).
MCORE_CALL = re.compile(r"^(\w*TransformerConfig|ModelParallelConfig)$")
CONTAINER_CALL = re.compile(r"^(ConfigContainer|create_test_config_container)$")
CHECK_METHODS = ("validate", "finalize", "__post_init__")
#: Upstream helpers that set one graph field of a config: name -> field (Bridge utils/cuda_graph.py).
SETTERS = {"set_cuda_graph_modules": "cuda_graph_modules"}
MAX_PARAMS = 64


@dataclass
class Snapshot:
    kind: str  # "model" | "container" | "cli"
    values: Any  # dotted-key dict, or the argument list
    line: int
    test: str
    raises: tuple[str, str | None] | None
    unresolved: list[str] = field(default_factory=list)


@dataclass
class _Tracked:
    kind: str  # "model" | "container"
    values: dict[str, Any]
    unresolved: list[str]


def _kwargs(call: ast.Call, names: dict[str, Any], base: dict[str, Any] | None = None) -> tuple[dict, list[str]]:
    out = dict(base or {})
    bad: list[str] = []
    for kw in call.keywords:
        if kw.arg is None:
            continue  # **kwargs of a factory's own signature: its callers' values come separately
        try:
            out[kw.arg] = value(kw.value, names)
        except Unresolved as exc:
            bad.append(f"{kw.arg}={exc}")
    return out, bad


class TestModule:
    """One upstream test file: its constants, config factories and test functions."""

    def __init__(self, text: str):
        self.tree = ast.parse(text)
        self.constants: dict[str, Any] = {}
        self.factories: dict[str, dict[str, Any]] = {}
        self.returns: dict[str, str] = {}  # factory -> the config class it builds
        for node in self.tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                try:
                    self.constants[node.targets[0].id] = value(node.value, self.constants)
                except Unresolved:
                    pass
            elif isinstance(node, ast.FunctionDef) and not node.name.startswith("test"):
                base = self._factory_base(node)
                if base is not None:
                    self.factories[node.name] = base

    def _factory_base(self, fn: ast.FunctionDef) -> dict[str, Any] | None:
        """The literal keyword arguments a factory passes to a config class: written in the call,
        or in a dict it builds and splats (``defaults = {...}; defaults.update(kwargs);
        return GPTModelProvider(**defaults)``)."""
        dicts = {}
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                try:
                    val = value(node.value, self.constants)
                except Unresolved:
                    continue
                if isinstance(val, dict):
                    dicts[node.targets[0].id] = val
        for node in ast.walk(fn):
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Call):
                name = call_name(node.value)
                if name and CONFIG_CALL.match(name):
                    self.returns[fn.name] = name
                    kwargs, _ = _kwargs(node.value, self.constants)
                    for kw in node.value.keywords:
                        if kw.arg is None and isinstance(kw.value, ast.Name) and kw.value.id in dicts:
                            kwargs = {**dicts[kw.value.id], **kwargs}
                    return kwargs
        return None

    def functions(self) -> Iterator[ast.FunctionDef]:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
                yield node

    def snapshots(self) -> Iterator[Snapshot]:
        for fn in self.functions():
            seen: set[str] = set()
            for params in _parametrize(fn, self.constants):
                names = {**self.constants, **params}
                for snap in _Walker(self, fn.name, names).run(fn.body):
                    key = repr((snap.kind, snap.values, snap.raises, snap.unresolved))
                    if key not in seen:
                        seen.add(key)
                        yield snap


def _parametrize(fn: ast.FunctionDef, constants: dict[str, Any]) -> list[dict[str, Any]]:
    axes: list[list[dict[str, Any]]] = []
    for dec in fn.decorator_list:
        if not (isinstance(dec, ast.Call) and call_name(dec) == "parametrize" and len(dec.args) >= 2):
            continue
        try:
            argnames = value(dec.args[0], constants)
            rows = dec.args[1]
            items = rows.elts if isinstance(rows, (ast.List, ast.Tuple)) else None
        except Unresolved:
            continue
        if items is None:
            continue
        names = [a.strip() for a in argnames.split(",")] if isinstance(argnames, str) else list(argnames)
        axis = []
        for item in items:
            if isinstance(item, ast.Call) and call_name(item) == "param":
                item = item.args[0] if len(item.args) == 1 else ast.Tuple(elts=item.args)
            try:
                row = value(item, constants)
            except Unresolved:
                continue
            row = row if len(names) > 1 and isinstance(row, list) else [row]
            if len(row) == len(names):
                axis.append(dict(zip(names, row)))
        if axis:
            axes.append(axis)
    combos = [dict(kv for d in combo for kv in d.items()) for combo in itertools.product(*axes)] if axes else [{}]
    return combos[:MAX_PARAMS]


class _Walker:
    def __init__(self, module: TestModule, test: str, names: dict[str, Any]):
        self.module, self.test, self.names = module, test, names
        self.env: dict[str, _Tracked] = {}
        self.out: list[Snapshot] = []
        self.argv: list[str] | None = None  # sys.argv set by monkeypatch, parsed at parse_args()

    def run(self, body: list[ast.stmt]) -> list[Snapshot]:
        self._block(body, None)
        return self.out

    def _block(self, body: list[ast.stmt], raises: tuple[str, str | None] | None) -> None:
        for st in body:
            if isinstance(st, (ast.With, ast.AsyncWith)):
                inner = raises
                for item in st.items:
                    r = self._raises(item.context_expr)
                    if r is not None:
                        inner = r
                self._block(st.body, inner)
            elif isinstance(st, ast.Try):
                self._block(st.body, raises)
                for h in st.handlers:
                    self._block(h.body, raises)
                self._block(st.finalbody, raises)
            elif isinstance(st, (ast.If, ast.For, ast.While)):
                self._block(st.body, raises)
                self._block(st.orelse, raises)
            elif isinstance(st, ast.Assign):
                tracked = self._expr(st.value, raises, st.lineno)
                for target in st.targets:
                    self._assign(target, st.value, tracked)
            elif isinstance(st, ast.Expr):
                self._expr(st.value, raises, st.lineno)
            elif isinstance(st, ast.Assert):
                self._asserted(st.test)

    def _asserted(self, test: ast.AST) -> None:
        """``assert container.rerun_state_machine.check_for_nan_in_loss is True``: a value the test
        states its config holds (a default it relies on), recorded where the config leaves it unset."""
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.Eq))):
            return
        parts = chain(test.left)
        if not parts or parts[0] not in self.env or len(parts) < 2:
            return
        obj = self.env[parts[0]]
        key = ".".join(parts[1:]) if obj.kind == "container" else "model." + ".".join(parts[1:])
        try:
            obj.values.setdefault(key, value(test.comparators[0], self.names))
        except Unresolved:
            pass

    def _raises(self, node: ast.AST) -> tuple[str, str | None] | None:
        if not (isinstance(node, ast.Call) and call_name(node) == "raises" and node.args):
            return None
        exc = ast.unparse(node.args[0])
        match = None
        for kw in node.keywords:
            if kw.arg == "match":
                try:
                    match = str(value(kw.value, self.names))
                except Unresolved:
                    match = ast.unparse(kw.value)
        return exc, match

    def _assign(self, target: ast.AST, rhs: ast.AST, tracked: _Tracked | None) -> None:
        if isinstance(target, ast.Tuple) and target.elts and tracked is not None:
            target = target.elts[0]  # container, og_ws, cfg_mod = create_test_config_container(...)
        if isinstance(target, ast.Name) and tracked is not None:
            self.env[target.id] = tracked
            return
        parts = chain(target)
        if not parts or parts[0] not in self.env:
            return
        obj = self.env[parts[0]]
        if len(parts) < 2:
            return
        key = ".".join(parts[1:]) if obj.kind == "container" else "model." + ".".join(parts[1:])
        try:
            obj.values[key] = value(rhs, self.names)
        except Unresolved as exc:
            if GRAPH_KEY.search(key):
                obj.unresolved.append(f"{key}={exc}")

    def _expr(self, node: ast.AST, raises, line: int) -> _Tracked | None:
        result = None
        for sub in ast.walk(node):
            if isinstance(sub, ast.List) and sub.elts and self._cli(sub, raises, line, node):
                continue
            name = call_name(sub)
            if name is None:
                continue
            if name in ("parse_args", "validate_args", "initialize_megatron") and self.argv is not None:
                self.out.append(Snapshot("cli", self.argv, line, self.test, raises))
                self.argv = None
                continue
            if CONFIG_CALL.match(name) or name in self.module.factories:
                kwargs, bad = _kwargs(sub, self.names, self.module.factories.get(name))
                tracked = _Tracked("model", {f"model.{k}": v for k, v in kwargs.items()}, bad)
                if MCORE_CALL.match(self.module.returns.get(name, name)):
                    self._snap(tracked, raises, line)  # megatron-core checks in __post_init__
                result = result or tracked  # Bridge providers and containers check at validate()/finalize()
            elif CONTAINER_CALL.match(name):
                result = result or self._container(sub)
            elif name in SETTERS and len(sub.args) == 2 and isinstance(sub.args[0], ast.Name) and sub.args[0].id in self.env:
                obj = self.env[sub.args[0].id]
                prefix = "model." if obj.kind == "model" else "model."
                try:
                    obj.values[prefix + SETTERS[name]] = value(sub.args[1], self.names)
                except Unresolved as exc:
                    obj.unresolved.append(f"{SETTERS[name]}={exc}")
            elif name in CHECK_METHODS and isinstance(sub.func, ast.Attribute):
                parts = chain(sub.func.value)
                if parts and parts[0] in self.env:
                    self._snap(self.env[parts[0]], raises, line)
        return result if node is not None and isinstance(node, ast.Call) else None

    def _container(self, call: ast.Call) -> _Tracked:
        values: dict[str, Any] = {}
        bad: list[str] = []
        for kw in call.keywords:
            if kw.arg is None:
                continue
            section = re.sub(r"_config(_override)?$", "", kw.arg)  # model_config=, dataset_config_override=
            if isinstance(kw.value, ast.Name) and kw.value.id in self.env:
                inner = self.env[kw.value.id]
                values.update({f"{section}.{k.split('.', 1)[1]}": v for k, v in inner.values.items()})
                bad += inner.unresolved
            elif isinstance(kw.value, ast.Call):
                kwargs, b = _kwargs(kw.value, self.names)
                values.update({f"{section}.{k}": v for k, v in kwargs.items()})
                bad += [x for x in b if GRAPH_KEY.search(x)]
        values.setdefault("meta.built_by", call_name(call))  # a Bridge ConfigContainer, not a bare model config
        return _Tracked("container", values, bad)

    def _cli(self, node: ast.List, raises, line: int, stmt: ast.AST) -> bool:
        try:
            args = value(node, self.names)
        except Unresolved:
            return False
        if not all(isinstance(a, str) for a in args):
            return False
        if args and args[0].endswith(".py"):
            args = args[1:]
        if not args or not args[0].startswith("--") or not any(GRAPH_KEY.search(a) for a in args):
            return False
        if "argv" in ast.unparse(stmt)[:200] and call_name(stmt) == "setattr":
            self.argv = list(args)  # monkeypatch.setattr(sys, "argv", [...]): parsed later
        else:
            self.out.append(Snapshot("cli", list(args), line, self.test, raises))
        return True

    def _snap(self, tracked: _Tracked, raises, line: int) -> None:
        if not any(GRAPH_KEY.search(k) for k in tracked.values) and not any(GRAPH_KEY.search(u) for u in tracked.unresolved):
            return
        self.out.append(Snapshot(tracked.kind, dict(tracked.values), line, self.test, raises,
                                 [u for u in tracked.unresolved if GRAPH_KEY.search(u)]))
