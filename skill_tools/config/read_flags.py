"""Hydra overrides and command-line flags: ``model.cuda_graph_scope=[attn,mlp]``, Bridge's
``run_script.py`` options and Megatron-LM's ``pretrain_gpt.py`` flags (through the flag tables
extracted from upstream), with the launcher words and environment prefixes around them."""

from __future__ import annotations

import re
import shlex
from typing import Any

from skill_tools.config import flags as flag_tables
from skill_tools.config import limits
from skill_tools.config.cli_tables import section_keys
from skill_tools.config.model import CanonicalConfig, Location
from skill_tools.errors import InputError

_ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")
_ENV_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\+?=")


def _tokens(text: str, source: str) -> list[tuple[str, int]]:
    """Shell-like tokens with their line numbers (comments, ``\\`` continuations handled)."""
    out: list[tuple[str, int]] = []
    logical: list[tuple[str, int]] = []
    buf, start = "", None
    quote = None
    for i, raw in enumerate(text.splitlines(), 1):
        if start is None:
            start = i
        was_quoted = quote is not None
        quote = _quote_after(raw, quote)
        if quote is not None:  # a quoted word goes on over the newline, as in the shell
            buf += raw + "\n"
            continue
        if raw.rstrip().endswith("\\") and not (was_quoted and raw.rstrip().endswith("\\\\")):
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


def _quote_after(line: str, quote: str | None) -> str | None:
    """The quote still open at the end of ``line`` (None, ``'`` or ``"``), given the one open at
    its start; a ``#`` comment outside quotes ends the scan."""
    i, n = 0, len(line)
    while i < n:
        ch = line[i]
        if quote == "'":
            if ch == "'":
                quote = None
        elif quote == '"':
            if ch == "\\":
                i += 1
            elif ch == '"':
                quote = None
        elif ch == "\\":
            i += 1
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            break
        i += 1
    return quote


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
    """Read one Hydra override (hydra-core's grammar: :mod:`~skill_tools.config.hydra_grammar`);
    False when ``token`` is not one. ``~key`` (with or without a value) clears the key; a
    config-group choice (``model/llama=x``, ``key@pkg=x``) names no key and sets nothing."""
    from skill_tools.config import hydra_grammar

    found = hydra_grammar.parse_override(token)
    if found is None:
        return False
    if found.is_group:
        return True
    key = found.key
    if found.prefix != "~" and _ENV_NAME.match(key) and "." not in key:
        cfg.env[key] = token.split("=", 1)[1]
        return True
    if "." not in key:
        key = f"{home_section(key)}.{key}"
    cfg.set(key, None if found.prefix == "~" else found.value, Location(source, line))
    return True


def home_section(name: str) -> str:
    """The ConfigContainer section a bare override names (``pad_to_max_length=true``): ``model``
    unless the name is no model field and exactly one other section has it (data/config_keys.json)."""
    sections = section_keys()
    if name in sections.get("model", ()):
        return "model"
    homes = [s for s, fields in sections.items() if name in fields]
    return homes[0] if len(homes) == 1 else "model"


def read_hydra(text: str, source: str) -> CanonicalConfig:
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
    from skill_tools.config.shell_words import variable_ref, variables

    found = variables(text)
    quoted = set(re.findall(r'"\$\{([A-Za-z_]\w*)\[@\]\}"', text))  # "${ARGS[@]}": one word per element
    whole = variables(text, split=False) if quoted else {}
    out: list[tuple[str, int]] = []
    for tok, line in toks:
        name = variable_ref(tok)
        out.extend(whole[name] if name in quoted and name in whole else found[name] if name in found else [(tok, line)])
    return out


def _script_index(text: str, toks: list[tuple[str, int]]) -> int | None:
    """The token that names the Python script (``pretrain_gpt.py``, or ``"$SCRIPT"`` where the
    script assigns ``SCRIPT=pretrain_gpt.py``); an assignment is not the script."""
    from skill_tools.config.shell_words import is_script_word, variables

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


def _command_tokens(cfg: CanonicalConfig, text: str, source: str) -> list[tuple[str, int]]:
    """The tokens of the command that runs the script (arrays it expands included); the words
    before the script are the launcher's (``torchrun --nproc-per-node 8``), of which only the
    environment assignments count."""
    toks = _tokens(text, source)
    script = _script_index(text, toks)
    if script is not None:
        cfg.script = toks[script][0]
        for token, _ in toks[:script]:
            _env_token(cfg, token)
        toks = _expand_arrays(text, _same_command(toks, script))
    return toks


def read_megatron_lm(text: str, source: str) -> CanonicalConfig:
    cfg = CanonicalConfig(source=source, fmt="megatron_lm")
    toks = _command_tokens(cfg, text, source)
    cfg.argv = [(t, ln) for t, ln in toks if not ("=" in t and not t.startswith("-") and _ENV_NAME.match(t.split("=", 1)[0]))]
    i = 0
    while i < len(toks):
        token, line = toks[i]
        i += 1
        if not token.startswith("--"):
            _env_token(cfg, token)  # KEY=VALUE; launcher words (torchrun, python, pretrain_gpt.py, export) are skipped
            continue
        name, eq, inline = token[2:].partition("=")
        name = name[:-1] if name.endswith(":") and not eq else name  # "--flag: value" (functional-test YAML)
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
    """Set ``flag.keys`` from the option's values; a store_true flag given one boolean
    (``--flag false``) takes it like any other option, and ignores any other words after it."""
    value: Any
    if any("$" in v or "`" in v for v in values):
        return  # a shell expansion the script does not assign: its value is known only at run time
    one_boolean = len(values) == 1 and (isinstance(scalar(values[0]), bool) or values[0] in ("0", "1"))
    if flag.kind == "flag" and values and not one_boolean:
        values = []  # "--rl-persist-cuda-graphs is set but …": words after a store_true flag are not its value
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


def read_run_script(text: str, source: str) -> CanonicalConfig:
    from skill_tools.config import cli_tables

    cfg = CanonicalConfig(source=source, fmt="run_script")
    toks = _command_tokens(cfg, text, source)
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
