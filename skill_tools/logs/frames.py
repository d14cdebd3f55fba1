"""Traceback frames and which of them are CUDA-graph machinery (capture or replay).

A frame is graph code when its file is one of the graph modules of PyTorch, TE, MCore, vLLM or
SGLang; its function name then tells the phase: capture (``capture``, ``make_graphed_callables``,
``_capture_cudagraphs`` …) or replay (``replay``). ``package_of`` names the known package a frame
belongs to, so a finding can point at the innermost frame of a package the user can act on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MAX_FRAMES = 40  # frames kept per traceback (the innermost ones matter)

# Frames that belong to CUDA-graph machinery (file path or function name).
GRAPH_FILES = (
    "cuda_graphs.py", "full_cuda_graph.py", "optimizer_cuda_graph.py", "transformer_engine/pytorch/graph.py",
    "torch/cuda/graphs.py", "cudagraph_utils.py", "cuda_graph_runner.py", "cudagraph_trees.py",
    "cuda_graph", "cudagraph",
)
CAPTURE_FUNCS = (
    "capture", "make_graphed_callables", "create_cudagraphs", "init_cuda_graphs", "_full_graph_compile",
    "capture_model", "_capture_cudagraphs", "_warmup_and_capture", "capture_end", "capture_begin",
    "create_cuda_graphs", "_capture", "init_device_graphs", "record_function", "cuda_graph_warmup",
)
REPLAY_FUNCS = ("replay",)
_PACKAGES = (  # (path substring, package name), most specific first
    ("megatron/bridge/", "megatron.bridge"), ("megatron/core/", "megatron.core"), ("megatron_fsdp/", "megatron_fsdp"),
    ("megatron/training/", "megatron.training"), ("transformer_engine/", "transformer_engine"),
    ("/nemo/", "nemo"), ("/vllm/", "vllm"), ("/sglang/", "sglang"), ("tensorrt_llm/", "tensorrt_llm"),
    ("torch/_inductor/", "torch._inductor"), ("torch/distributed/", "torch.distributed"),
    ("torch/cuda/", "torch.cuda"), ("/torch/", "torch"),
)


@dataclass
class Frame:
    file: str
    line: int
    func: str

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "func": self.func}

    def __str__(self) -> str:
        return f"{self.file}:{self.line} in {self.func}"


def is_graph_frame(f: Frame) -> bool:
    path = f.file.replace("\\", "/")
    return any(g in path for g in GRAPH_FILES) or f.func in ("make_graphed_callables", "_make_graphed_callables")


def is_capture_func(func: str) -> bool:
    return any(func == c or func.startswith(c) for c in CAPTURE_FUNCS)


def package_of(f: Frame) -> str | None:
    path = "/" + f.file.replace("\\", "/")
    return next((name for needle, name in _PACKAGES if needle in path), None)
