"""What run produced a log: model size, batch, sequence length, world size, graph settings.

Read from what Megatron-LM prints at startup, so that a comparison can say when two logs are not
the same experiment:

- the argument dump, ``'  {} {} {}'.format(arg, dots, value)`` (megatron/training/arguments.py
  ``_print_args``, core_v0.16.1 and core_v0.19.0);
- ``using world size: {}, data-parallel size: {}, ...`` (arguments.py ``validate_args``);
- ``Total number of parameters in billions: {:.2f}`` (training.py / Bridge ``print_rank_0`` of the
  theoretical-memory report, seen in NVIDIA-NeMo/Megatron-Bridge PR #643);
- the per-iteration line's ``global batch size`` field (read from the iterations by compare.py).
"""

from __future__ import annotations

import re
from typing import Any

ARG_LINE = re.compile(r"\s{2}(?P<key>[a-z_][a-z0-9_]*) \.{2,} (?P<value>.*?)\s*$")
WORLD = re.compile(r"using world size: (\d+)")
PARAMS = re.compile(r"Total number of parameters in billions: ([0-9.]+)")

KEYS = frozenset({
    "num_layers", "hidden_size", "ffn_hidden_size", "num_attention_heads", "seq_length",
    "global_batch_size", "micro_batch_size", "world_size", "tensor_model_parallel_size",
    "pipeline_model_parallel_size", "context_parallel_size", "expert_model_parallel_size", "num_experts",
    "moe_token_dispatcher_type", "cuda_graph_impl", "cuda_graph_scope", "cuda_graph_modules",
    "enable_cuda_graph", "external_cuda_graph", "log_num_zeros_in_grad", "cuda_graph_warmup_steps",
    "fp8", "bf16", "model_name", "tokenizer_type",
})
# What makes two runs "the same model" for a timing comparison.
MODEL_KEYS = ("num_layers", "hidden_size", "ffn_hidden_size", "num_attention_heads", "num_experts")


class RunInfo:
    def __init__(self) -> None:
        self.args: dict[str, str] = {}
        self.params_billion: float | None = None
        self.world_size: int | None = None

    def feed(self, text: str) -> tuple[str, str] | None:
        """Record what ``text`` says about the run; returns (key, value) for an argument line."""
        if text[:2] == "  " and " .." in text:
            m = ARG_LINE.match(text)
            if m and m.group("key") in KEYS:
                self.args[m.group("key")] = m.group("value")
                return m.group("key"), m.group("value")
            return None
        if "using world size:" in text:
            m = WORLD.search(text)
            if m:
                self.world_size = int(m.group(1))
        elif "number of parameters in billions" in text:
            m = PARAMS.search(text)
            if m:
                self.params_billion = float(m.group(1))
        return None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"args": dict(self.args)}
        ws = self.world_size or _int(self.args.get("world_size"))
        if ws is not None:
            d["world_size"] = ws
        if self.params_billion is not None:
            d["params_billion"] = self.params_billion
        return d


def _int(v: str | None) -> int | None:
    try:
        return None if v is None else int(v)
    except ValueError:
        return None
