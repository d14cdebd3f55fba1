"""Read every config shape into one :class:`CanonicalConfig`.

Formats: ``yaml`` (Bridge ``ConfigContainer`` dumps, ``_target_`` keys tolerated, or a flat
``TransformerConfig`` mapping), ``json``, ``python`` (assignment snippets, parsed with :mod:`ast`
and never executed), ``hydra`` (``model.cuda_graph_scope=[attn,mlp]``), ``run_script`` (Bridge perf
harness flags) and ``megatron_lm`` (``pretrain_gpt.py`` flags). Bad input raises
:class:`~skill_tools.errors.InputError` naming the source, the line and the fix.
"""

from __future__ import annotations

import ast
import json
import re
import shlex
from pathlib import Path
from typing import Any, Iterable, Mapping

from skill_tools.config import flags as flag_tables
from skill_tools.config import limits
from skill_tools.config.model import GRAPH_ENV_VARS, SECTIONS, CanonicalConfig, Location, plain
from skill_tools.errors import InputError

FORMATS: tuple[str, ...] = ("yaml", "json", "python", "hydra", "run_script", "megatron_lm")
#: Config files are small; anything larger is not a config (and would be slow to read).
MAX_BYTES = 5 * 1024 * 1024
#: Names a Python snippet may use for the ConfigContainer (``cfg.model.x = ...``).
_CONTAINER_NAMES = {"cfg", "config", "recipe", "c", "conf", "container", "config_container", "self"}
_MODEL_OBJECT_NAMES = {"model", "model_cfg", "model_config", "provider", "transformer_config", "tc"}
_ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")
_ENV_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\+?=")


# --------------------------------------------------------------------------------------------
# entry points
# --------------------------------------------------------------------------------------------


def read_path(path: str | Path, fmt: str | None = None) -> CanonicalConfig:
    """Read a file (``-`` for stdin) in any supported format."""
    import sys

    source = str(path)
    if source == "-":
        data = sys.stdin.buffer.read(MAX_BYTES + 1)
        source = "<stdin>"
    else:
        p = Path(path)
        if not p.exists():
            raise InputError(source, "no such file", hint="check the path")
        if p.is_dir():
            raise InputError(source, "is a directory, not a config file")
        size = p.stat().st_size
        if size > MAX_BYTES:
            raise InputError(source, f"file is {size / 1e6:.1f} MB; config files are expected under "
                                     f"{MAX_BYTES // (1024 * 1024)} MB", hint="pass the config itself, not a log or checkpoint")
        try:
            data = p.read_bytes()
        except OSError as exc:
            raise InputError(source, f"cannot read: {exc.strerror or exc}") from None
        if fmt is None:
            fmt = _format_from_suffix(p.suffix)
    return read_text(_decode(data, source), fmt=fmt, source=source)


def read_text(text: str, fmt: str | None = None, source: str = "<text>") -> CanonicalConfig:
    """Read config text; ``fmt=None`` detects the format."""
    if len(text) > MAX_BYTES:
        raise InputError(source, f"input is {len(text) / 1e6:.1f} MB; config files are expected under 5 MB")
    if "\x00" in text:
        raise InputError(source, "binary data, not a config file", hint="pass a YAML/JSON/Python/flags file")
    if not text.strip():
        raise InputError(source, "empty input", hint="pass a Bridge YAML, a TransformerConfig dict, Python assignments, Hydra overrides or flags")
    fmt = fmt or detect_format(text)
    if fmt not in _READERS:
        raise InputError(source, f"unsupported format {fmt!r}", hint=f"one of: {', '.join(FORMATS)}")
    limits.check_brackets(text, source)
    try:
        cfg = _READERS[fmt](text, source)
    except (RecursionError, MemoryError):  # the bounds above keep real input far from this
        raise InputError(source, f"{fmt} input too deeply nested or too complex to read; not a config") from None
    cfg.source, cfg.fmt = source, fmt
    return cfg


def read_object(obj: Any) -> CanonicalConfig:
    """Read a live Bridge ``ConfigContainer``, an MCore ``TransformerConfig`` (duck-typed
    attributes), a mapping (nested ConfigContainer layout or a flat TransformerConfig dict) or a
    :class:`CanonicalConfig`."""
    if isinstance(obj, CanonicalConfig):
        return obj.copy()
    if isinstance(obj, Mapping):
        return _from_mapping(obj, "<object>", "object")
    cfg = CanonicalConfig(source=f"<{type(obj).__name__}>", fmt="object")
    sections = [s for s in SECTIONS if _has_attr(obj, s)]
    if "model" in sections and not _has_attr(obj, "num_layers"):
        for name in sections:
            section = getattr(obj, name)
            if section is not None:
                _read_attrs(cfg, section, name, depth=0)
    else:
        _read_attrs(cfg, obj, "model", depth=0)
    return cfg


def detect_format(text: str) -> str:
    """Guess the format of config text (cheap heuristics, no parsing of the whole text)."""
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith(("{", "[")):
        return "json"
    body = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    joined = " ".join(body)
    dash_flags = re.findall(r"(?:^|\s)--([A-Za-z][\w-]*)", joined)
    short = re.findall(r"(?:^|\s)(-[A-Za-z]{1,3})(?=\s)", joined)
    if short and not dash_flags and ("run_script" in joined or _run_script_options(short)):
        return "run_script"  # run_script.py's short options only: -m llama -mr llama3_8b -ep 16
    if dash_flags:
        # run_script.py's options never contain '-' (argument_parser.py @067f987); Megatron-LM's
        # mostly do, and a launcher's own (torchrun --nproc_per_node) may use '_'
        if "run_script" in joined or not any("-" in f for f in dash_flags):
            return "run_script"
        return "megatron_lm"
    if any(re.match(r"^(import|from)\s+\w|^def\s+\w|^\w[\w.]*\s*\(", ln) for ln in body):
        return "python"
    assign = [ln for ln in body if re.match(r"^[+~]{0,2}[A-Za-z_]\w*(\.\w+)+\s*=", ln)]
    if assign:
        roots = {re.match(r"^[+~]{0,2}([A-Za-z_]\w*)", ln).group(1) for ln in assign}
        spaced = any(re.match(r"^[\w.]+\s+=|^[\w.]+=\s", ln) for ln in assign)
        if spaced or (roots - set(SECTIONS)) & (_CONTAINER_NAMES | _MODEL_OBJECT_NAMES):
            return "python"
        return "hydra"
    return "yaml"


def _run_script_options(short: list[str]) -> bool:
    """Whether every short option is one of run_script.py's (and -m is among them: its model)."""
    from skill_tools.config import cli_tables

    table = cli_tables.run_script()
    return "-m" in short and all(table.option(o) is not None for o in short)


# --------------------------------------------------------------------------------------------
# text decoding
# --------------------------------------------------------------------------------------------


def _decode(data: bytes, source: str) -> str:
    if len(data) > MAX_BYTES:
        raise InputError(source, f"input is larger than {MAX_BYTES // (1024 * 1024)} MB; not a config file")
    if b"\x00" in data[:8192]:
        raise InputError(source, "binary data, not a config file", hint="pass a YAML/JSON/Python/flags file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(source, "not UTF-8 text (binary file?)", line=line) from None


def _format_from_suffix(suffix: str) -> str | None:
    return {".yaml": "yaml", ".yml": "yaml", ".json": "json", ".py": "python"}.get(suffix.lower())


# --------------------------------------------------------------------------------------------
# YAML / JSON
# --------------------------------------------------------------------------------------------


def _untarget(value: Any) -> Any:
    """Reduce Bridge/OmegaConf ``_target_`` objects to plain data.

    Enum dumps (``{_target_: ...CudaGraphScope, _call_: true, _args_: [2], _name_: attn}``) become
    their name; function/dtype dumps (``_call_: false``) and partials become the target string;
    dataclass sections keep their fields.
    """
    if isinstance(value, Mapping):
        if "_target_" in value:
            if "_name_" in value:
                return str(value["_name_"])
            if value.get("_call_") is False or value.get("_partial_"):
                return str(value["_target_"])
        return {k: _untarget(v) for k, v in value.items()
                if not str(k).startswith(("_target_", "_call_", "_args_", "_partial_"))}
    if isinstance(value, list):
        return [_untarget(v) for v in value]
    return value


def _from_mapping(data: Any, source: str, fmt: str, lines: Mapping[str, int] | None = None) -> CanonicalConfig:
    if data is None:
        raise InputError(source, "empty document", hint="the file holds no mapping")
    if not isinstance(data, Mapping):
        raise InputError(source, f"expected a mapping of config sections or TransformerConfig fields, got a {type(data).__name__}",
                         line=(lines or {}).get("", None))
    limits.check_data(data, source)
    data = _untarget(data)
    env = data.pop("env", None) if isinstance(data.get("env"), Mapping) else None
    nested = any(str(k) in SECTIONS for k in data)
    cfg = CanonicalConfig.from_nested(data, source=source, fmt=fmt, flat_section=None if nested else "model")
    if env:
        cfg.env.update({str(k): str(v) for k, v in env.items()})
    for key in cfg.values:
        raw = key if nested else key[len("model."):]
        line = (lines or {}).get(raw)
        if line is not None:
            cfg.locations[key] = Location(source, line)
    return cfg


def _read_yaml(text: str, source: str) -> CanonicalConfig:
    import yaml

    try:
        data, node = limits.load_yaml(text, source)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = (exc.problem or exc.context or "syntax error").strip()
        raise InputError(source, f"YAML syntax error: {problem}", line=mark.line + 1 if mark else None,
                         hint="fix the YAML at that line") from None
    except yaml.YAMLError as exc:
        raise InputError(source, f"YAML error: {exc}") from None
    if isinstance(data, str) and "=" in data and data.count("\n") == 0:
        return _read_hydra(text, source)
    lines: dict[str, int] = {}
    if node is not None:
        _node_lines(node, "", lines)
    return _from_mapping(data, source, "yaml", lines)


def _node_lines(node: Any, prefix: str, out: dict[str, int]) -> None:
    import yaml

    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = str(key_node.value)
            if key.startswith("_target_"):
                continue
            dotted = f"{prefix}{key}"
            out[dotted] = key_node.start_mark.line + 1
            _node_lines(value_node, dotted + ".", out)


def _read_json(text: str, source: str) -> CanonicalConfig:
    try:
        data = json.loads(text, parse_int=lambda digits: _bounded_int(digits, source))
    except json.JSONDecodeError as exc:
        raise InputError(source, f"JSON syntax error: {exc.msg} (column {exc.colno})", line=exc.lineno,
                         hint="fix the JSON at that line") from None
    lines: dict[str, int] = {}
    for i, line in enumerate(text.splitlines(), 1):
        for m in re.finditer(r'"([A-Za-z_][\w]*)"\s*:', line):
            lines.setdefault(m.group(1), i)
    flat_lines: dict[str, int] = {}
    if isinstance(data, Mapping):
        for key in _dotted_keys(data):
            line = lines.get(key.rsplit(".", 1)[-1])
            if line is not None:
                flat_lines[key] = line
    return _from_mapping(data, source, "json", flat_lines)


def _bounded_int(digits: str, source: str) -> int:
    limits.check_int_digits(digits, source)
    return int(digits)


def _dotted_keys(data: Mapping[str, Any], prefix: str = "") -> Iterable[str]:
    for k, v in data.items():
        yield prefix + str(k)
        if isinstance(v, Mapping):
            yield from _dotted_keys(v, prefix + str(k) + ".")


# --------------------------------------------------------------------------------------------
# Python (ast only)
# --------------------------------------------------------------------------------------------


def _read_python(text: str, source: str) -> CanonicalConfig:
    try:
        tree = ast.parse(text, filename=source)
    except SyntaxError as exc:
        raise InputError(source, f"Python syntax error: {exc.msg}", line=exc.lineno,
                         hint="the snippet is parsed, never executed; fix the syntax") from None
    except (MemoryError, RecursionError):
        raise InputError(source, "Python expression too deeply nested to parse; not a config",
                         hint="the snippet is parsed, never executed") from None
    cfg = CanonicalConfig(source=source, fmt="python")
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and node.value.bit_length() > 4 * limits.MAX_INT_DIGITS:
            raise InputError(source, f"integer literal of about {int(node.value.bit_length() * 0.30103)} digits "
                                     f"(limit {limits.MAX_INT_DIGITS}); not a config value", line=node.lineno)
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if node.value is None:
                continue
            for target in targets:
                for tgt, val in _pairs(target, node.value):
                    _python_assign(cfg, tgt, val, source)
        elif isinstance(node, ast.Call):
            _python_call(cfg, node, source)
    return cfg


def _pairs(target: ast.AST, value: ast.AST) -> Iterable[tuple[ast.AST, ast.AST]]:
    """``a.x = b.y = v`` and ``a.x, a.y = v1, v2`` as (target, value) pairs."""
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) and len(target.elts) == len(value.elts):
        for t, v in zip(target.elts, value.elts):
            yield from _pairs(t, v)
    else:
        yield target, value


def _attr_chain(node: ast.AST) -> list[str] | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return parts[::-1]
    return None


def _python_key(chain: list[str]) -> str | None:
    root, rest = chain[0], chain[1:]
    if root in SECTIONS and rest:
        return ".".join(chain)
    if not rest:
        return None
    if rest[0] in SECTIONS and len(rest) > 1:
        return ".".join(rest)
    if root in _MODEL_OBJECT_NAMES or root in _CONTAINER_NAMES:
        return "model." + ".".join(rest)
    return None


def _python_assign(cfg: CanonicalConfig, target: ast.AST, value: ast.AST, source: str) -> None:
    line = getattr(target, "lineno", None)
    if isinstance(target, ast.Subscript):
        chain = _attr_chain(target.value)
        key = target.slice
        if chain == ["os", "environ"] and isinstance(key, ast.Constant) and isinstance(key.value, str):
            ok, v = _literal(value)
            if ok:
                cfg.env[key.value] = str(v)
            return
    chain = _attr_chain(target)
    if not chain:
        return
    key = _python_key(chain)
    if key is None:
        return
    ok, v = _literal(value)
    if ok:
        cfg.set(key, v, Location(source, line))
    else:
        cfg.unparsed.append(f"{source}:{line}: {'.'.join(chain)} = <not a literal: {ast.unparse(value)[:60]}>")


def _python_call(cfg: CanonicalConfig, node: ast.Call, source: str) -> None:
    """``TransformerConfig(cuda_graph_impl="local", ...)`` / ``GPTModelProvider(...)`` keywords."""
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
    if not re.search(r"(TransformerConfig|ModelProvider|Provider\w*|ModelConfig)$", name or ""):
        return
    for kw in node.keywords:
        if kw.arg is None:
            continue
        ok, v = _literal(kw.value)
        if ok:
            cfg.set("model." + kw.arg, v, Location(source, kw.value.lineno))


def _literal(node: ast.AST) -> tuple[bool, Any]:
    """Literal value of an expression; enum attributes (``CudaGraphScope.attn``) read as names."""
    if isinstance(node, ast.Attribute):
        chain = _attr_chain(node)
        return (True, chain[-1]) if chain and len(chain) >= 2 else (False, None)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        out = []
        for elt in node.elts:
            ok, v = _literal(elt)
            if not ok:
                return False, None
            out.append(v)
        return True, out
    if isinstance(node, ast.Dict):
        out_d = {}
        for k, v in zip(node.keys, node.values):
            ok_k, kv = _literal(k) if k is not None else (False, None)
            ok_v, vv = _literal(v)
            if not (ok_k and ok_v):
                return False, None
            out_d[kv] = vv
        return True, out_d
    try:
        return True, ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None


# --------------------------------------------------------------------------------------------
# Hydra overrides and command-line flags
# --------------------------------------------------------------------------------------------


def _tokens(text: str, source: str) -> list[tuple[str, int]]:
    """Shell-like tokens with their line numbers (comments, ``\\`` continuations handled)."""
    out: list[tuple[str, int]] = []
    logical: list[tuple[str, int]] = []
    buf, start = "", None
    for i, raw in enumerate(text.splitlines(), 1):
        if start is None:
            start = i
        if raw.rstrip().endswith("\\"):
            buf += raw.rstrip()[:-1] + " "
            continue
        logical.append((buf + raw, start))
        buf, start = "", None
    if buf:
        logical.append((buf, start or 1))
    for line, lineno in logical:
        try:
            lexer = shlex.shlex(line, posix=True, punctuation_chars=False)
            lexer.whitespace_split = True
            lexer.commenters = "#"
            toks = list(lexer)
        except ValueError as exc:
            raise InputError(source, f"cannot split into arguments: {exc}", line=lineno,
                             hint="check quotes") from None
        out.extend((t, lineno) for t in toks)
    return out


def scalar(text: str) -> Any:
    """Command-line/Hydra value -> plain value (bool, None, int, float, list or str)."""
    t = text.strip()
    low = t.lower()
    # Hydra's grammar (and argparse, which gives strings) reads 'none', 'yes', 'no' and '~' as
    # strings: --cuda-graph-impl none is the impl 'none', not a missing value
    if low == "true":
        return True
    if low == "false":
        return False
    if low == "null":
        return None
    if t.startswith("[") and t.endswith("]"):
        inner = t[1:-1].strip()
        return [scalar(p) for p in _split_top(inner)] if inner else []
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "'\"":
        return t[1:-1]
    if re.fullmatch(r"[-+]?\d+", t):
        return int(t) if len(t) <= limits.MAX_INT_DIGITS else t  # an absurd number stays text
    if re.fullmatch(r"[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?", t):
        return float(t)
    return t


def _split_top(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


def _hydra_token(cfg: CanonicalConfig, token: str, line: int, source: str) -> bool:
    m = re.match(r"^([+~]{0,2})([A-Za-z_][\w]*(?:\.[\w]+)*)(?:=(.*))?$", token, re.S)
    if not m:
        return False
    prefix, key, value = m.groups()
    if value is None:
        if prefix == "~":
            cfg.set(key if "." in key else "model." + key, None, Location(source, line))
            return True
        return False
    if _ENV_NAME.match(key) and "." not in key:
        cfg.env[key] = value
        return True
    if "." not in key:
        key = "model." + key
    cfg.set(key, scalar(value), Location(source, line))
    return True


def _read_hydra(text: str, source: str) -> CanonicalConfig:
    cfg = CanonicalConfig(source=source, fmt="hydra")
    for token, line in _tokens(text, source):
        if token in ("export",) or token.endswith(".py") or token in ("python", "python3", "torchrun", "uv", "run"):
            continue
        if not _hydra_token(cfg, token, line, source):
            raise InputError(source, f"not a Hydra override: {token!r}", line=line,
                             hint="expected key=value, e.g. model.cuda_graph_scope=[attn,mlp]")
        if "=" in token and not _ENV_NAME.match(token.split("=", 1)[0]):
            cfg.overrides.append((token, line))
    return cfg


def _env_token(cfg: CanonicalConfig, token: str) -> bool:
    if "=" not in token:
        return False
    name, value = token.split("=", 1)
    if _ENV_NAME.match(name):
        cfg.env[name] = value
        return True
    return False


def _expand_arrays(text: str, toks: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """``toks`` with each ``${NAME[@]}``/``$NAME``/``${NAME}`` of a variable the script assigns
    (``ARGS=( --num-layers 96 ... )``, ``options="--num-layers 48 ..."``) replaced by the words
    its unquoted expansion gives: Megatron-LM's example scripts keep their flags in them."""
    if not any("$" in t for t, _ in toks):
        return toks
    from skill_tools.config.shell_edit import variables, variable_ref

    found = variables(text)
    out: list[tuple[str, int]] = []
    for tok, line in toks:
        name = variable_ref(tok)
        out.extend(found[name] if name in found else [(tok, line)])
    return out


def _script_index(text: str, toks: list[tuple[str, int]]) -> int | None:
    """The token that names the Python script (``pretrain_gpt.py``, or ``"$SCRIPT"`` where the
    script assigns ``SCRIPT=pretrain_gpt.py``); an assignment is not the script."""
    from skill_tools.config.shell_edit import is_script_word, variables

    found = None
    values = None
    for n, (t, line) in enumerate(toks):
        if t.endswith(".py") and not _ENV_ASSIGN.match(t):
            found = n
        elif t == "-m" and n + 1 < len(toks) and _runs_python(toks, n, line):
            found = n + 1  # python -m pkg.module / torchrun ... -m pkg.module
        elif "$" in t:
            values = values if values is not None else variables(text)
            if is_script_word(t, values):
                found = n
    return found


def _runs_python(toks: list[tuple[str, int]], at: int, line: int) -> bool:
    """Whether ``-m`` at ``at`` is the launcher's module option: a python/torchrun word earlier
    on the same command line and no ``.py`` script before it (run_script.py's ``-m`` is a model)."""
    before = [t for t, ln in toks[:at] if ln == line]
    launchers = [i for i, t in enumerate(before) if t.rsplit("/", 1)[-1] in ("python", "python3", "torchrun")]
    return bool(launchers) and not any(t.endswith(".py") for t in before[launchers[-1]:])


def _same_command(toks: list[tuple[str, int]], script: int) -> list[tuple[str, int]]:
    """The arguments after the script word, up to the end of its command line (tokens carry
    their logical line: a later command such as ``echo done`` is not an argument)."""
    line = toks[script][1]
    return [(t, ln) for t, ln in toks[script + 1:] if ln == line]


def _read_megatron_lm(text: str, source: str) -> CanonicalConfig:
    cfg = CanonicalConfig(source=source, fmt="megatron_lm")
    toks = _tokens(text, source)
    script = _script_index(text, toks)
    if script is not None:
        # flags before the script are the launcher's (torchrun --nproc-per-node 8 ...)
        cfg.script = toks[script][0]
        for token, _ in toks[:script]:
            _env_token(cfg, token)
        toks = _expand_arrays(text, _same_command(toks, script))
    cfg.argv = [(t, ln) for t, ln in toks if not ("=" in t and not t.startswith("-") and _ENV_NAME.match(t.split("=", 1)[0]))]
    i = 0
    while i < len(toks):
        token, line = toks[i]
        i += 1
        if not token.startswith("--"):
            _env_token(cfg, token)  # KEY=VALUE; launcher words (torchrun, python, pretrain_gpt.py, export) are skipped
            continue
        name, eq, inline = token[2:].partition("=")
        values: list[str] = [inline] if eq else []
        if not eq:
            while i < len(toks) and not toks[i][0].startswith("--") and not (
                    "=" in toks[i][0] and _ENV_NAME.match(toks[i][0].split("=", 1)[0])):
                values.append(toks[i][0])
                i += 1
        flag = flag_tables.megatron_lm_flag(name)
        _apply_flag(cfg, flag, name, values, Location(source, line), source)
    if cfg.get("model.cpu_offloading_num_layers") and not cfg.has("model.cpu_offloading"):
        cfg.set("model.cpu_offloading", True, cfg.location("model.cpu_offloading_num_layers"))
    return cfg


def _apply_flag(cfg: CanonicalConfig, flag: flag_tables.Flag, name: str, values: list[str],
                loc: Location, source: str) -> None:
    """Set ``flag.keys`` from the option's values; a store_true flag given a value
    (``--flag false``) takes it like any other option."""
    value: Any
    if any("$" in v or "`" in v for v in values):
        return  # a shell expansion the script does not assign: its value is known only at run time
    if flag.kind == "flag_false" or (flag.kind == "flag" and not values):
        value = flag.value if flag.value is not None else (flag.kind == "flag")
    elif flag.kind == "list":
        value = [scalar(v) for v in values for v in (v.split(",") if "," in v else [v])]
    elif flag.kind == "comma_list":
        if not values:
            raise InputError(source, f"--{name} needs a value", line=loc.line)
        value = [scalar(v) for v in values[0].split(",") if v]
    else:
        if not values:
            value = True  # store_true flag that is not in the table
        elif len(values) == 1:
            value = scalar(values[0])
        else:
            value = [scalar(v) for v in values]
    for key in flag.keys:
        cfg.set(key, value, loc)


def _read_run_script(text: str, source: str) -> CanonicalConfig:
    from skill_tools.config import cli_tables

    cfg = CanonicalConfig(source=source, fmt="run_script")
    toks = _tokens(text, source)
    script = _script_index(text, toks)
    if script is not None:
        cfg.script = toks[script][0]
        for token, _ in toks[:script]:
            _env_token(cfg, token)
        toks = _expand_arrays(text, _same_command(toks, script))
    table = cli_tables.run_script()
    i = 0
    while i < len(toks):
        token, line = toks[i]
        i += 1
        loc = Location(source, line)
        if token.startswith("-") and not re.match(r"^-\d", token):
            cfg.argv.append((token, line))
            name, eq, inline = token.lstrip("-").partition("=")
            value = inline if eq else None
            opt = table.option(token.split("=", 1)[0])
            takes_value = opt is None or not opt.is_switch
            if value is None and takes_value and i < len(toks) and not toks[i][0].startswith("-") and not (
                    opt is None and "=" in toks[i][0]):
                value = toks[i][0]
                cfg.argv.append(toks[i])
                i += 1
            if name in ("env", "E", "custom_env_vars", "ce") and value:
                for part in value.split(","):
                    _env_token(cfg, part)
                continue
            if name in flag_tables.RUN_SCRIPT_IGNORED:
                continue
            flag = flag_tables.RUN_SCRIPT.get(name)
            if flag is None:
                # a harness option without a graph meaning is read and ignored; an unknown one is
                # reported by the run-script-flag-unknown rule (it keeps cfg.argv)
                continue
            _apply_flag(cfg, flag, name, [value] if value is not None else [], loc, source)
        elif "=" in token and not _ENV_NAME.match(token.split("=", 1)[0]) and _hydra_token(cfg, token, line, source):
            cfg.overrides.append((token, line))
            continue
        elif _env_token(cfg, token):
            continue
    _run_script_implied(cfg)
    return cfg


def _run_script_implied(cfg: CanonicalConfig) -> None:
    """What the perf harness sets on top of the flags (``scripts/performance/utils/overrides.py``:
    ``_set_common_perf_overrides``, ``_set_cuda_graph_overrides``, ``_set_recompute_overrides``)."""
    implied = Location(cfg.source + " (implied by run_script.py)")
    for key in ("ddp.check_for_nan_in_grad", "rerun_state_machine.check_for_nan_in_loss"):
        if not cfg.has(key):
            cfg.set(key, False, implied)
    impl = cfg.get("model.cuda_graph_impl")
    if impl is not None:
        for key in ("rng.te_rng_tracker", "model.use_te_rng_tracker"):
            if not cfg.has(key):
                cfg.set(key, impl != "none", implied)
    if cfg.get("model.recompute_num_layers") is not None and not cfg.has("model.recompute_granularity"):
        cfg.set("model.recompute_granularity", "full", implied)
        cfg.set("model.recompute_method", "block", implied)
    elif cfg.has("model.recompute_modules") and not cfg.has("model.recompute_granularity"):
        cfg.set("model.recompute_granularity", "selective", implied)
    offload = cfg.get("model.cpu_offloading_num_layers")
    if isinstance(offload, int) and not isinstance(offload, bool) and offload > 0:
        cfg.set("model.cpu_offloading", True, implied)


# --------------------------------------------------------------------------------------------
# live objects
# --------------------------------------------------------------------------------------------


def _has_attr(obj: Any, name: str) -> bool:
    try:
        return hasattr(obj, name)
    except Exception:  # noqa: BLE001 - properties of live objects may raise
        return False


def _read_attrs(cfg: CanonicalConfig, obj: Any, prefix: str, depth: int) -> None:
    import dataclasses

    if depth > 3:
        return
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        names = [f.name for f in dataclasses.fields(obj)]
    elif isinstance(obj, Mapping):
        names = [str(k) for k in obj]
    else:
        names = [n for n in getattr(obj, "__dict__", {}) if not n.startswith("_")]
    for name in names:
        try:
            value = obj[name] if isinstance(obj, Mapping) else getattr(obj, name)
        except Exception:  # noqa: BLE001
            continue
        key = f"{prefix}.{name}"
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            _read_attrs(cfg, value, key, depth + 1)
            continue
        value = plain(value)
        if isinstance(value, (bool, int, float, str, type(None))) or _is_plain(value):
            cfg.values[key] = value
        elif callable(value) or type(value).__module__.startswith("torch"):
            cfg.values[key] = _qualname(value)


def _is_plain(value: Any) -> bool:
    if isinstance(value, (bool, int, float, str, type(None))):
        return True
    if isinstance(value, list):
        return all(_is_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_plain(v) for k, v in value.items())
    return False


def _qualname(value: Any) -> str:
    mod = getattr(value, "__module__", None) or type(value).__module__
    name = getattr(value, "__qualname__", None) or str(value)
    return f"{mod}.{name}" if mod and not str(name).startswith(mod) else str(name)


_READERS = {
    "yaml": _read_yaml,
    "json": _read_json,
    "python": _read_python,
    "hydra": _read_hydra,
    "run_script": _read_run_script,
    "megatron_lm": _read_megatron_lm,
}

__all__ = ["FORMATS", "read_path", "read_text", "read_object", "detect_format", "scalar", "GRAPH_ENV_VARS"]
