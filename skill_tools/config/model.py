"""The one canonical config model.

Every input format (Bridge ``ConfigContainer`` YAML, Python assignments, Hydra overrides,
``run_script.py`` flags, Megatron-LM flags, live config objects) is read into a
:class:`CanonicalConfig`; every output (YAML, Python, Hydra, flags) is rendered from one.

Keys are dotted paths in Megatron Bridge's ``ConfigContainer`` layout, because it is the
superset: ``model.*`` holds ``TransformerConfig``/provider fields, and the other sections
(``rng``, ``rerun_state_machine``, ``ddp``, ``train``, ``dataset``, ``comm_overlap``,
``optimizer``, ``checkpoint``, ``inference``) hold what Megatron-LM keeps in ``args``.
Environment variables that change CUDA-graph behaviour live in ``env``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

#: Sections of Bridge's ConfigContainer that the canonical model knows.
#: A change that deletes a key (one the target era does not know); never a real value.
REMOVE = "<remove>"

SECTIONS: tuple[str, ...] = (
    "model",
    "rng",
    "rerun_state_machine",
    "ddp",
    "train",
    "dataset",
    "comm_overlap",
    "optimizer",
    "scheduler",
    "checkpoint",
    "logger",
    "tokenizer",
    "mixed_precision",
    "dist",
    "profiling",
    "peft",
    "inference",
)

#: Environment variables that change what CUDA graphs do.
GRAPH_ENV_VARS: tuple[str, ...] = (
    "PYTORCH_CUDA_ALLOC_CONF",
    "NCCL_GRAPH_REGISTER",
    "TORCH_NCCL_AVOID_RECORD_STREAMS",
    "NCCL_NVLS_ENABLE",
    "CUDA_DEVICE_MAX_CONNECTIONS",
    "CUDA_GRAPHS_USE_NODE_PRIORITY",
)

_MISSING = object()


@dataclass(frozen=True)
class Location:
    """Where a value came from, for messages that point at the input."""

    source: str
    line: int | None = None

    def __str__(self) -> str:
        return f"{self.source}:{self.line}" if self.line is not None else self.source


@dataclass
class CanonicalConfig:
    """Flat mapping of dotted keys (``model.cuda_graph_impl``) to plain Python values.

    Values are plain data only (str, int, float, bool, None, list, dict): enum members from
    live objects are stored by name, so the model is serialisable and era-neutral.
    """

    values: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    source: str = "<memory>"
    fmt: str = "dict"
    locations: dict[str, Location] = field(default_factory=dict)
    #: Input that was read but not understood (kept, never silently dropped).
    unparsed: list[str] = field(default_factory=list)
    #: Command-line formats: the script that takes the flags (``pretrain_gpt.py``), the flags as
    #: written with their line numbers, and Hydra overrides as written. The rules check them
    #: against the upstream parsers of the chosen version (unknown flags, values, sweeps).
    script: str | None = None
    argv: list[tuple[str, int]] = field(default_factory=list)
    overrides: list[tuple[str, int]] = field(default_factory=list)

    # -- access -----------------------------------------------------------------------------
    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)

    def has(self, key: str) -> bool:
        return key in self.values

    def set(self, key: str, value: Any, location: Location | None = None) -> None:
        self.values[key] = plain(value)
        if location is not None:
            self.locations[key] = location

    def unset(self, key: str) -> None:
        self.values.pop(key, None)
        self.locations.pop(key, None)

    def location(self, key: str) -> Location:
        return self.locations.get(key, Location(self.source))

    def section(self, name: str) -> dict[str, Any]:
        """The keys of one section, without the section prefix."""
        prefix = name + "."
        return {k[len(prefix):]: v for k, v in self.values.items() if k.startswith(prefix)}

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        return iter(sorted(self.values.items()))

    def copy(self) -> "CanonicalConfig":
        return copy.deepcopy(self)

    # -- conversion -------------------------------------------------------------------------
    def to_nested(self) -> dict[str, Any]:
        """Nested dict in ConfigContainer layout (for YAML/JSON output)."""
        out: dict[str, Any] = {}
        for key, value in self.values.items():
            node = out
            parts = key.split(".")
            for part in parts[:-1]:
                nxt = node.get(part)
                if not isinstance(nxt, dict):
                    nxt = {}
                    node[part] = nxt
                node = nxt
            node[parts[-1]] = copy.deepcopy(value)
        return out

    @classmethod
    def from_nested(
        cls,
        data: Mapping[str, Any],
        *,
        source: str = "<memory>",
        fmt: str = "dict",
        flat_section: str | None = None,
    ) -> "CanonicalConfig":
        """Build from a nested mapping.

        ``flat_section`` names the section for a flat dict (a bare ``TransformerConfig``
        dict reads as ``flat_section="model"``). ``_target_`` keys (Hydra/Bridge) are skipped.
        """
        cfg = cls(source=source, fmt=fmt)
        if flat_section is not None:
            data = {flat_section: dict(data)}
        for key, value in _flatten(data):
            cfg.values[key] = plain(value)
        return cfg

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready description of the config (for ``--json`` output)."""
        return {"source": self.source, "format": self.fmt, "values": dict(self), "env": dict(self.env)}


def _flatten(data: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Yield (dotted key, leaf value); nested mappings (Bridge's nested dataclasses such as
    ``dataset.packed_sequence_specs``) flatten too, and ``_target_`` keys are skipped."""
    for key, value in data.items():
        key = str(key)
        if key.startswith("_target_"):
            continue
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping):
            yield from _flatten(value, dotted + ".")
        else:
            yield dotted, value


def plain(value: Any) -> Any:
    """Convert enum members, tuples and other exotic values to plain data."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    name = getattr(value, "name", None)
    if isinstance(name, str) and type(value).__module__ != "builtins" and hasattr(type(value), "__members__"):
        return name
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    return value


def as_name_list(value: Any) -> list[str]:
    """Normalise a scope/modules value (None, "a,b", "full", ["attn"], enum) to a list of names.

    Mirrors how MCore reads ``cuda_graph_scope``/``cuda_graph_modules``: a comma-separated
    string is split, ``"full"`` and empty mean the whole layer (an empty list), and enum
    members (``CudaGraphScope.attn``) are reduced to their names.
    """
    if value is None:
        return []
    if isinstance(value, str):
        if value in ("", "full"):
            return []
        return [p.strip().rsplit(".", 1)[-1] for p in value.split(",") if p.strip()]
    if isinstance(value, (list, tuple)):
        out: list[str] = []
        for item in value:
            out.extend(as_name_list(item) if isinstance(item, str) and "," in item else [_name(item)])
        return [n for n in out if n != "full"] if out != ["full"] else []
    return [_name(value)]


def _name(item: Any) -> str:
    if isinstance(item, str):
        return item.strip().rsplit(".", 1)[-1]
    name = getattr(item, "name", None)
    return name if isinstance(name, str) else str(item).rsplit(".", 1)[-1]
