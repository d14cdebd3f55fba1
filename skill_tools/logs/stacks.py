"""Which software wrote a pasted text: votes from frame paths, logger formats and line tags.

Evidence is counted, never assumed: a frame in ``megatron/core/`` is three votes for Megatron-LM, a
``[TRT-LLM]`` tag one for TensorRT-LLM, a ``torch/`` frame one for PyTorch. The verdict's stack is
the first stack in ``STACKS`` order that has a vote (a Megatron frame outranks the PyTorch frames
under it); with none, the stack is ``unknown`` and only stack-neutral advice is given.
"""

from __future__ import annotations

import re
from typing import Any

STACKS = ("megatron-bridge", "nemo", "megatron-lm", "sglang", "vllm", "tensorrt-llm", "transformer-engine",
          "pytorch")
STACK_NAMES = {
    "megatron-bridge": "Megatron Bridge", "nemo": "NeMo", "megatron-lm": "Megatron-LM / Megatron-Core",
    "sglang": "SGLang", "vllm": "vLLM", "tensorrt-llm": "TensorRT-LLM",
    "transformer-engine": "Transformer Engine (without Megatron)",
    "pytorch": "PyTorch (no Megatron, TE or serving framework seen)", "unknown": "unknown",
}
MEGATRON_STACKS = frozenset({"megatron-lm", "megatron-bridge"})

_PATH_TAGS = (  # (substring of a frame path, stack)
    ("megatron/bridge/", "megatron-bridge"), ("/nemo/", "nemo"), ("megatron/core/", "megatron-lm"),
    ("megatron/training/", "megatron-lm"), ("megatron/legacy/", "megatron-lm"), ("megatron_fsdp/", "megatron-lm"),
    ("/sglang/", "sglang"), ("/sgl_kernel/", "sglang"), ("/vllm/", "vllm"), ("vllm/v1/", "vllm"),
    ("tensorrt_llm/", "tensorrt-llm"), ("transformer_engine/", "transformer-engine"), ("/torch/", "pytorch"),
    ("torch/", "pytorch"),
)
_LINE_TAGS = (  # (substring of a non-frame line, stack)
    ("megatron.bridge", "megatron-bridge"), ("[NeMo ", "nemo"), ("nemo_logging", "nemo"),
    ("megatron.core", "megatron-lm"), ("validation loss at iteration", "megatron-lm"), ("megatron.training", "megatron-lm"),
    ("INFO:megatron", "megatron-lm"), ("sglang", "sglang"), ("Capturing batches (", "sglang"),
    ("vllm", "vllm"), ("vLLM", "vllm"), ("(EngineCore", "vllm"),
    ("Engine 000:", "vllm"), ("Capturing CUDA graph shapes", "vllm"), ("Capturing CUDA graphs (", "vllm"),
    ("Capturing cudagraphs for decoding", "vllm"), ("Graph capturing finished", "vllm"), ("VllmWorker", "vllm"),
    ("[TRT-LLM]", "tensorrt-llm"), ("[TensorRT-LLM]", "tensorrt-llm"), ("tensorrt_llm", "tensorrt-llm"),
    ("transformer_engine", "transformer-engine"), ("TransformerEngine", "transformer-engine"),
    ("torch/_inductor", "pytorch"), ("[__cudagraphs]", "pytorch"), ("skipping cudagraphs", "pytorch"),
    ("CUDAGraph supports dynamic shapes", "pytorch"), ("ProcessGroupNCCL", "pytorch"), ("torch.", "pytorch"),
    ("NCCL INFO", "pytorch"),
)
_SITE_PKG = re.compile(r"(?:site|dist)-packages/([A-Za-z_]\w*)/")
_KNOWN_PACKAGES = ("torch", "megatron", "transformer_engine", "vllm", "sglang", "nemo", "tensorrt_llm")


class StackVotes:
    """Votes per stack, the first line that cast each, and other packages seen in frame paths."""

    def __init__(self) -> None:
        self.votes: dict[str, int] = {}
        self.evidence: dict[str, str] = {}
        self.other_packages: dict[str, int] = {}

    def vote(self, stack: str, evidence: str, weight: int = 1) -> None:
        self.votes[stack] = self.votes.get(stack, 0) + weight
        self.evidence.setdefault(stack, evidence.strip()[:200])

    def vote_path(self, path: str, evidence: str) -> None:
        p = path.replace("\\", "/")
        for needle, stack in _PATH_TAGS:
            if needle in p:
                self.vote(stack, evidence, 3)
                return
        m = _SITE_PKG.search(p)
        if m:
            self.other_packages[m.group(1)] = self.other_packages.get(m.group(1), 0) + 1

    def vote_line(self, text: str) -> None:
        for needle, stack in _LINE_TAGS:
            if needle in text:
                self.vote(stack, text)
                return

    def stack(self, extra_votes: dict[str, int] | None = None) -> dict[str, Any]:
        votes = dict(self.votes)
        for k, v in (extra_votes or {}).items():
            votes[k] = votes.get(k, 0) + v
        name = next((s for s in STACKS if votes.get(s)), "unknown")
        megatron = name in MEGATRON_STACKS or (name == "nemo" and bool(votes.get("megatron-lm")))
        other = sorted(self.other_packages, key=lambda k: -self.other_packages[k])
        return {
            "name": name,
            "description": STACK_NAMES[name],
            "megatron": megatron,
            "evidence": {k: self.evidence[k] for k in STACKS if k in self.evidence},
            "other_packages": [p for p in other if p not in _KNOWN_PACKAGES][:5],
        }
