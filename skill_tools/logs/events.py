"""CUDA-graph capture/replay events printed by Megatron-Core, Megatron Bridge and TE.

Every message below is matched anywhere in the line (not anchored on the ``INFO:logger:``
prefix), so logs from programs that configure MCore's loggers differently still parse.
All graph messages contain "graph" or "Graph", so ``'raph' in text`` is a cheap exact gate.

Sources (core_v0.19.0 unless noted):
- ``megatron/core/full_cuda_graph.py`` l.209/237 ``Capture CUDA graph for {training_str}!!!`` /
  ``CUDA graph capture done for {training_str}!!!`` (core_v0.15.0 l.182: ``CUDA graph capture done!!!``)
- ``megatron/core/optimizer/optimizer_cuda_graph.py`` l.32/46 (optimizer graph)
- ``megatron/core/transformer/cuda_graphs.py`` TECudaGraphHelper l.2209 ``Rank {r}: {n} graphable
  layers.``, l.2668 ``Start CUDA Graphs capture...``, l.2692 ``Time spent in CUDA Graphs capture on
  rank {r}: {s}s``, l.2789 ``Rank {r}: {a} graphs deleted with explicit reset, ...``;
  CudaGraphManager l.575 ``Creating {n} CUDA graphs`` (core_v0.16.0 l.381), l.603
  ``create cuda graphs | mem: alloc {a}, res {r}``, l.638 ``> built {n} cuda graph(s) in {t:.2f} sec,
  with total memory usage: allocated {a}, reserved {r}.``
- ``megatron/core/inference/engines/dynamic_engine.py`` l.441 ``> dynamic_engine.py: building cuda
  graphs for``, l.541 ``  [graph %d/%d] ...``, l.567 ``> built cuda graph(s) in {t:.2f} sec. Mempool:
  reserved {r}, allocated {a}. Process-wide delta: allocated {a}, reserved {r}.``
- Megatron Bridge ``src/megatron/bridge/training/train.py`` @067f987 l.1677 ``Deleting CUDA graphs``
- TransformerEngine ``transformer_engine/pytorch/graph.py``: ``make_graphed_callables`` prints no INFO
  line; its deprecation warnings name it, which is the only trace of a TE capture in some logs.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

GATE = "raph"

_UNIT = {"bytes": 1.0, "kb": 1024.0, "mb": 1024.0**2, "gb": 1024.0**3, "tb": 1024.0**4}
_MEM = r"(-?[0-9.]+ (?:bytes|kb|mb|gb|tb))"


def mem_to_mib(text: str) -> float | None:
    """``format_mem_bytes`` output (``1.2 gb``, ``-3.0 mb``, ``12 bytes``; 1024-based) -> MiB."""
    try:
        num, unit = text.split()
        return float(num) * _UNIT[unit] / _UNIT["mb"]
    except (ValueError, KeyError):
        return None


@dataclass
class GraphEvent:
    """One CUDA-graph message. ``kind`` is one of KINDS; ``impl`` which implementation printed it."""

    line_no: int
    kind: str
    impl: str
    rank: int | None = None
    count: int | None = None
    seconds: float | None = None
    allocated_mib: float | None = None
    reserved_mib: float | None = None
    scope: str | None = None
    text: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


KINDS = ("layers", "capture_start", "capture_end", "capture_progress", "deleted", "te_used")

# (needle, regex or None, kind, impl, scope). First needle found wins; regex extracts numbers.
_RULES: tuple[tuple[str, re.Pattern[str] | None, str, str, str | None], ...] = (
    ("Capture CUDA graph for optimizer", None, "capture_start", "optimizer", "optimizer"),
    ("Optimizer CUDA graph capture done", None, "capture_end", "optimizer", "optimizer"),
    ("Capture CUDA graph for ", re.compile(r"Capture CUDA graph for (\w+)!!!"), "capture_start", "full_iteration", None),
    ("CUDA graph capture done", re.compile(r"CUDA graph capture done(?: for (\w+))?!!!"), "capture_end", "full_iteration", None),
    ("graphable layers.", re.compile(r"Rank (\d+): (\d+) graphable layers\."), "layers", "transformer_engine", None),
    ("Start CUDA Graphs capture", None, "capture_start", "transformer_engine", "training"),
    ("Time spent in CUDA Graphs capture", re.compile(r"capture on rank (\d+): ([0-9.eE+-]+)s"), "capture_end", "transformer_engine", "training"),
    ("graphs deleted with explicit reset", re.compile(r"Rank (\d+): (\d+) graphs deleted with explicit reset, (\d+) graphs"), "deleted", "transformer_engine", None),
    ("Deleting CUDA graphs", None, "deleted", "bridge", None),
    ("dynamic_engine.py: building cuda graphs", None, "capture_start", "inference", "inference"),
    ("> built cuda graph(s) in", re.compile(r"built cuda graph\(s\) in ([0-9.]+) sec\.(?: Mempool: reserved " + _MEM + r", allocated " + _MEM + r"\.)?(?: Process-wide delta: allocated " + _MEM + r", reserved " + _MEM + r")?"), "capture_end", "inference", "inference"),
    ("[graph ", re.compile(r"\[graph (\d+)/(\d+)\]"), "capture_progress", "inference", "inference"),
    ("cuda graph(s) in", re.compile(r"built (\d+) cuda graph\(s\) in ([0-9.]+) sec, with total memory usage: allocated " + _MEM + r", reserved " + _MEM), "capture_end", "local", "training"),
    ("CUDA graphs", re.compile(r"Creating (\d+) CUDA graphs"), "capture_start", "local", "training"),
    ("create cuda graphs | mem:", re.compile(r"create cuda graphs \| mem: alloc " + _MEM + r", res " + _MEM), "capture_progress", "local", "training"),
    ("make_graphed_callables", None, "te_used", "transformer_engine", None),
)


def parse_event(line_no: int, text: str, rank: int | None = None) -> GraphEvent | None:
    """A GraphEvent for a CUDA-graph message line, else None. Cheap for non-graph lines."""
    if GATE not in text:
        return None
    for needle, rx, kind, impl, scope in _RULES:
        if needle not in text:
            continue
        ev = GraphEvent(line_no=line_no, kind=kind, impl=impl, rank=rank, scope=scope, text=text.strip()[:300])
        if rx is None:
            return ev
        m = rx.search(text)
        if m is None:
            continue
        g = m.groups()
        if impl == "full_iteration":
            ev.scope = g[0] or "training"
        elif kind == "layers":
            ev.rank, ev.count = int(g[0]), int(g[1])
        elif impl == "transformer_engine" and kind == "capture_end":
            ev.rank, ev.seconds = int(g[0]), float(g[1])
        elif kind == "deleted":
            ev.rank, ev.count = int(g[0]), int(g[1]) + int(g[2])
        elif impl == "inference" and kind == "capture_end":
            # core_v0.19.0 prints the graph pool and the process-wide delta; older tags only the time.
            ev.seconds = float(g[0])
            pool_res, pool_alloc, delta_alloc, delta_res = (mem_to_mib(x) if x else None for x in g[1:5])
            ev.reserved_mib = delta_res if delta_res is not None else pool_res
            ev.allocated_mib = delta_alloc if delta_alloc is not None else pool_alloc
        elif impl == "inference":
            ev.count = int(g[1])
        elif impl == "local" and kind == "capture_end":
            ev.count, ev.seconds = int(g[0]), float(g[1])
            ev.allocated_mib, ev.reserved_mib = mem_to_mib(g[2]), mem_to_mib(g[3])
        elif impl == "local" and kind == "capture_start":
            ev.count = int(g[0])
        elif kind == "capture_progress":
            ev.allocated_mib, ev.reserved_mib = mem_to_mib(g[0]), mem_to_mib(g[1])
        return ev
    return None
