"""Read every config shape into one :class:`CanonicalConfig`.

Formats: ``yaml`` (Bridge ``ConfigContainer`` dumps, ``_target_`` keys tolerated, or a flat
``TransformerConfig`` mapping), ``json``, ``python`` (assignment snippets, parsed with :mod:`ast`
and never executed), ``hydra`` (``model.cuda_graph_scope=[attn,mlp]``), ``run_script`` (Bridge perf
harness flags) and ``megatron_lm`` (``pretrain_gpt.py`` flags). Bad input raises
:class:`~skill_tools.errors.InputError` naming the source, the line and the fix.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Mapping

from skill_tools.config import limits
from skill_tools.config.model import GRAPH_ENV_VARS, SECTIONS, CanonicalConfig
from skill_tools.config.read_flags import read_hydra, read_megatron_lm, read_run_script, scalar
from skill_tools.config.read_objects import has_attr, read_attrs
from skill_tools.config.read_python import CONTAINER_NAMES, MODEL_OBJECT_NAMES, read_python
from skill_tools.config.read_structured import from_mapping, read_json, read_yaml
from skill_tools.errors import InputError
from skill_tools.input_file import MAX_CONFIG_BYTES as MAX_BYTES
from skill_tools.input_file import decode, read_bytes

FORMATS: tuple[str, ...] = ("yaml", "json", "python", "hydra", "run_script", "megatron_lm")


def read_path(path: str | Path, fmt: str | None = None) -> CanonicalConfig:
    """Read a file (``-`` for stdin; a pipe or device alike) in any supported format, bounded by
    the bytes read (:mod:`skill_tools.input_file`)."""
    source = "<stdin>" if str(path) == "-" else str(path)
    text = decode(read_bytes(path, limit=MAX_BYTES), source)
    if fmt is None and source != "<stdin>":
        fmt = format_from_suffix(Path(source).suffix)
    return read_text(text, fmt=fmt, source=source)


def read_text(text: str, fmt: str | None = None, source: str = "<text>") -> CanonicalConfig:
    """Read config text; ``fmt=None`` detects the format."""
    if len(text) > MAX_BYTES:
        raise InputError(source, f"input is {len(text) / 1e6:.1f} MB; config files are expected under 5 MB")
    text = text.lstrip("\ufeff")
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
    limits.check_unicode(cfg, source)
    return cfg


def read_object(obj: Any) -> CanonicalConfig:
    """Read a live Bridge ``ConfigContainer``, an MCore ``TransformerConfig`` (duck-typed
    attributes), a mapping (nested ConfigContainer layout or a flat TransformerConfig dict) or a
    :class:`CanonicalConfig`."""
    if isinstance(obj, CanonicalConfig):
        return obj.copy()
    if isinstance(obj, Mapping):
        cfg = from_mapping(obj, "<object>", "object")
        limits.check_unicode(cfg, cfg.source)
        return cfg
    cfg = CanonicalConfig(source=f"<{type(obj).__name__}>", fmt="object")
    sections = [s for s in SECTIONS if has_attr(obj, s)]
    if "model" in sections and not has_attr(obj, "num_layers"):
        for name in sections:
            section = getattr(obj, name)
            if section is not None:
                read_attrs(cfg, section, name, depth=0)
    else:
        read_attrs(cfg, obj, "model", depth=0)
    limits.check_unicode(cfg, cfg.source)
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
        if spaced or (roots - set(SECTIONS)) & (CONTAINER_NAMES | MODEL_OBJECT_NAMES):
            return "python"
        return "hydra"
    return "yaml"


def _run_script_options(short: list[str]) -> bool:
    """Whether every short option is one of run_script.py's (and -m is among them: its model)."""
    from skill_tools.config import cli_tables

    table = cli_tables.run_script()
    return "-m" in short and all(table.option(o) is not None for o in short)


def format_from_suffix(suffix: str) -> str | None:
    return {".yaml": "yaml", ".yml": "yaml", ".json": "json", ".py": "python"}.get(suffix.lower())


_READERS = {
    "yaml": read_yaml,
    "json": read_json,
    "python": read_python,
    "hydra": read_hydra,
    "run_script": read_run_script,
    "megatron_lm": read_megatron_lm,
}

__all__ = ["FORMATS", "read_path", "read_text", "read_object", "detect_format", "scalar", "GRAPH_ENV_VARS"]
