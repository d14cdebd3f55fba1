"""Records that cross the GPU subprocess boundary, typed and versioned.

* :class:`Sidecar` — what an engine that runs a framework's own loop observed (GPU side
  :mod:`skill_tools.harness.engines.observe` writes it at exit; the CLI side reads it with the
  run's log). Sidecars written before the version field existed read as version 0; the fields are
  the same.
* :class:`~skill_tools.harness.spec.VariantSpec` — what the proxy worker is asked to run (its JSON
  carries :data:`SPEC_SCHEMA_VERSION`).

A record of a newer version than this code knows is refused with the reason, never half-read.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

SIDECAR_SCHEMA_VERSION = 1
SPEC_SCHEMA_VERSION = 1


class RecordVersionError(ValueError):
    """A record written by a newer version of the harness."""


@dataclass(frozen=True)
class IterationTiming:
    """One call of the framework's ``train_step``: CUDA-event time, graph replays and captures in it."""

    cuda_ms: float
    replays: int = 0
    captures: int = 0


@dataclass
class Sidecar:
    """What an engine observed around the framework's own ``pretrain``."""

    ok: bool = False
    #: How far the run got: start, import, overrides, pretrain, done.
    phase: str | None = None
    exception: str | None = None
    substitutions: list[str] = field(default_factory=list)
    iterations: list[IterationTiming] = field(default_factory=list)
    iterations_error: str | None = None
    captures: int = 0
    replays: int = 0
    memory: dict[str, float] | None = None
    versions: dict[str, Any] = field(default_factory=dict)
    kernel_ms_per_step: float | None = None
    #: engine megatron-lm: host ms per part of train_step over the measured steps (headroom report).
    headroom: dict[str, Any] | None = None
    wall_s: float | None = None
    #: engine bridge: Bridge's graph settings after the overrides and after pretrain.
    graph_config: dict[str, Any] | None = None
    #: engine bridge: what Bridge's own ``_delete_cuda_graphs`` found at teardown.
    teardown: dict[str, Any] | None = None
    schema_version: int = SIDECAR_SCHEMA_VERSION

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Sidecar":
        version = int(data.get("schema_version", 0))
        if version > SIDECAR_SCHEMA_VERSION:
            raise RecordVersionError(f"sidecar schema_version {version} is newer than this harness reads "
                                     f"({SIDECAR_SCHEMA_VERSION}); upgrade megatron-cuda-graphs-skill")
        known = {f.name for f in fields(cls)}
        kw = {k: v for k, v in data.items() if k in known}
        kw["iterations"] = [IterationTiming(**{k: r[k] for k in ("cuda_ms", "replays", "captures") if k in r})
                            for r in data.get("iterations") or [] if isinstance(r, dict) and "cuda_ms" in r]
        kw["schema_version"] = version
        return cls(**kw)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def read_sidecar(path: Path) -> Sidecar | None:
    """The engine's sidecar, or None when the run died before writing a readable one."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    return Sidecar.from_dict(data)
