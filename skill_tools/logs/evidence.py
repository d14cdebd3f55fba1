"""Capture evidence: every CUDA-graph-related line, classified, and the capture status it supports.

``events.py`` reads the messages Megatron-Core / Bridge print when capture works (with numbers);
this module looks at *every* line that mentions graphs, in any stack, and sorts it into what it
proves: a capture started, finished, failed, graphs were replayed, configured, disabled, or only
mentioned. The status is the strongest claim the text supports and ``unknown`` when it supports
none, so a summary can never say "eager run" next to a graph error.

Sources of the texts (besides events.py): vLLM ``model_runner.py`` "Capturing cudagraphs for
decoding" / "Capturing CUDA graph shapes" (vllm-project/vllm#13661), SGLang ``cuda_graph_runner.py``
"Capture cuda graph begin/end", "Capturing batches (bs=" and "Capture cuda graph failed"
(sgl-project/sglang#4205, #7847), NeMo ASR ``label_looping_base.py`` "Cuda graphs with while loops
are disabled" (NVIDIA-NeMo/Speech#15615), CUDA runtime error names
(cudaErrorStreamCapture*, cudaErrorCapturedEvent), PyTorch ``torch/cuda/graphs.py``
("Capture must end on the same stream it began on", "during CUDA graph capture").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

MAX_EVIDENCE = 40

# Status order: a stronger claim replaces a weaker one.
STATUSES = ("unknown", "mentioned", "disabled", "configured", "capture-started", "captured", "replayed",
            "capture-failed")
_RANK = {s: i for i, s in enumerate(STATUSES)}

# (needle, kind). Checked in order; first needle found wins. All contain "raph" or "aptur"/"CUDA".
_RULES: tuple[tuple[str, str], ...] = (
    # failures while capturing (the strongest: the capture itself went wrong)
    ("Capture cuda graph failed", "capture-failed"),
    ("when stream is capturing", "capture-failed"),
    ("previous error during capture", "capture-failed"),
    ("during CUDA graph capture", "capture-failed"),
    ("during cuda graph capture", "capture-failed"),
    ("cudaErrorStreamCapture", "capture-failed"),
    ("cudaErrorCapturedEvent", "capture-failed"),
    ("hipErrorCapturedEvent", "capture-failed"),
    ("last recorded in a capturing stream", "capture-failed"),
    ("Capture must end on the same stream", "capture-failed"),
    ("capturing stream has unjoined work", "capture-failed"),
    ("dependency created on uncaptured work", "capture-failed"),
    ("depend on a capturing blocking stream", "capture-failed"),
    ("Unknown CUDA graph CaptureStatus", "capture-failed"),
    ("capture was not ended in the same stream", "capture-failed"),
    # disabled / not used
    ("Cuda graphs with while loops are disabled", "disabled"),
    ("No graphable layers found", "disabled"),
    ("CUDA graphs are not supported", "disabled"),
    ("cuda graphs disabled", "disabled"),
    ("CUDA graphs disabled", "disabled"),
    # finished captures
    ("Capturing CUDA graph shapes: 100%", "captured"),
    ("Graph capturing finished", "captured"),
    ("Capture cuda graph end", "captured"),
    ("Capture CUDA graph end", "captured"),
    # started captures
    ("Capturing cudagraphs for decoding", "capture-started"),
    ("Capturing the model for CUDA graphs", "capture-started"),
    ("Capturing CUDA graph shapes", "capture-started"),
    ("Capturing CUDA graphs", "capture-started"),
    ("Capturing batches (bs=", "capture-started"),
    ("Capture cuda graph begin", "capture-started"),
    ("Capture CUDA graph begin", "capture-started"),
    ("cuda graph addresses", "capture-started"),  # vLLM custom all-reduce registers graph buffers
    ("recording cudagraph tree", "capture-started"),  # torch/_inductor/cudagraph_trees.py (TORCH_LOGS=cudagraphs)
    ("of graph recording id", "capture-started"),
    ("Running warmup of function", "capture-started"),
    ("Capture cuda graph bs", "capture-started"),
    ("Capture draft cuda graph begin", "capture-started"),
    # disabled by the framework for this shape / backend
    ("skipping cudagraphs", "disabled"),  # torch/_inductor (cudagraph_utils.py skip messages)
    ("setting cudagraph_mode=PIECEWISE", "configured"),  # vLLM downgrades FULL graphs for a backend
    ("enforce_eager=True", "mentioned"),  # vLLM's startup advice names it in every run
    # in use / configured
    ("No CUDA Graphs were created", "configured"),
    ("CUDA Graphs should have been created", "configured"),
    ("does not support cudagraphs", "configured"),
    ("make_graphed_callables", "configured"),
    ("TECudaGraphHelper", "configured"),
    ("CudaGraphManager", "configured"),
    ("Deleting CUDA graphs", "configured"),
    ("graphs deleted", "configured"),
)
_GATES = ("raph", "aptur", "CaptureStatus")
_GRAPH_FILE = r"(?:graphs|cuda_graphs?|cuda_graph_runner|cudagraph_utils|cudagraph_trees|model_runner)\.py"
_FRAME_LINE = re.compile(
    rf"{_GRAPH_FILE}:\d+(?:\)| in) ?(?:(?P<replay>replay\w*)|capture\w*|init_\w*graphs)"
    rf"|(?:(?P<r2>replay)|capture\w*|init_\w*graphs) \({_GRAPH_FILE}:\d+\)")
_FAILED = re.compile(r"(?:graph capture|cuda ?graph (?:capture|warmup|build)|capture cuda graph)\w*[^.]{0,40}?"
                     r"\b(?:failed|failure|error)\b")

# Megatron-LM's argument dump ("  cuda_graph_impl ........ transformer_engine") and flags.
_CONFIG_KEYS_ON = {"cuda_graph_impl": ("local", "transformer_engine", "full_iteration"),
                   "enable_cuda_graph": ("True",), "external_cuda_graph": ("True",)}


@dataclass
class Evidence:
    line_no: int
    kind: str
    text: str
    rank: int | None = None

    def to_dict(self) -> dict[str, Any]:
        d = {"line_no": self.line_no, "kind": self.kind, "text": self.text}
        if self.rank is not None:
            d["rank"] = self.rank
        return d


def classify(text: str) -> str | None:
    """The evidence kind of a graph-related line, or None for lines that say nothing about graphs."""
    if not any(g in text for g in _GATES):
        return None
    for needle, kind in _RULES:
        if needle in text:
            return kind
    m = _FRAME_LINE.search(text)
    if m:  # a frame printed as "func (file:line)" / "file:line in func" naming graph capture or replay
        return "replayed" if m.group("replay") or m.group("r2") else "capture-started"
    low = text.lower()
    if _FAILED.search(low):  # "CUDA graph capture failed", "Decode cuda graph warmup failed"
        return "capture-failed"
    if "cuda graph" in low or "cudagraph" in low or "cuda_graph" in low:
        return "mentioned"
    return None


class EvidenceCollector:
    """Keeps the first MAX_EVIDENCE graph-related lines and the strongest status seen."""

    def __init__(self) -> None:
        self.items: list[Evidence] = []
        self.counts: dict[str, int] = {}
        self.status = "unknown"

    def add(self, line_no: int, kind: str, text: str, rank: int | None = None) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        if _RANK[kind] > _RANK[self.status]:
            self.status = kind
        for old in self.items[-3:]:  # one line, one item (the structural reading may add detail)
            if old.line_no == line_no:
                if _RANK[kind] > _RANK[old.kind]:
                    old.kind = kind
                return
        if len(self.items) < MAX_EVIDENCE or kind == "capture-failed" and self.counts[kind] <= 5:
            self.items.append(Evidence(line_no, kind, text.strip()[:300], rank))

    def strongest(self, n: int) -> list["Evidence"]:
        """Up to ``n`` items, the strongest kinds first kept, returned in line order (a capture near
        the end of a long log outranks the many mentions before it)."""
        keep = sorted(self.items, key=lambda e: (-_RANK[e.kind], e.line_no))[:n]
        return sorted(keep, key=lambda e: e.line_no)

    def feed(self, line_no: int, text: str, rank: int | None = None) -> None:
        kind = classify(text)
        if kind is not None:
            self.add(line_no, kind, text, rank)

    def config(self, key: str, value: str, line_no: int) -> None:
        """One Megatron-LM argument value (from the argument dump)."""
        on = _CONFIG_KEYS_ON.get(key)
        if on is None:
            return
        self.add(line_no, "configured" if value in on else "disabled", f"{key} = {value}")


SUMMARY = {
    "unknown": "unknown: no CUDA-graph line in this text (an eager run, graphs silently off, or an "
               "excerpt too short to tell)",
    "mentioned": "unknown: graphs are mentioned but nothing shows a capture",
    "disabled": "graphs disabled or skipped",
    "configured": "graphs configured or in use, but no capture message in this text",
    "capture-started": "capture started; its completion is not in this text",
    "captured": "graphs captured",
    "replayed": "graphs captured and replayed",
    "capture-failed": "capture failed",
}
