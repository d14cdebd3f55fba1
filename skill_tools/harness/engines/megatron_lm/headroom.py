"""Where the host time of a training step goes, inside Megatron-LM's own loop (GPU-subprocess side).

After capture, a graphed step is still slower than its kernels: what is left is host work the
graph does not cover. This module times, for the profiled steps only, the parts of Megatron-LM's
``train_step`` that users can switch off or graph, by wrapping the framework's own functions
(called unchanged, with the same arguments):

- ``forward_backward``: the schedule (a graph replay under full-iteration capture);
- ``get_batch``: the pretrain script's batch read (inside ``forward_backward``);
- ``optimizer.step`` with its nested ``optimizer.prepare_grads`` and ``optimizer.grad_norm_clip``;
- ``training_log``: loss reduction, logging syncs, throughput and timers output;
- ``train_step``: the whole call, so ``other`` (zero-grad, loss bookkeeping, rerun state machine,
  timers, and the wait for the GPU when the step is GPU-bound) is what the named parts leave.

Host times include the host's waits for the GPU: a ``.item()`` blocks inside its range. Each range
is also a ``record_function`` range, so a CPU+CUDA profile (not the bench's own, which stays
CUDA-only because host tracing stretches kernel times) attributes blocking synchronisations to the
innermost range that waited: :func:`sync_ms_by_range`.
"""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Any, Callable

#: Range name -> the settings that remove or shrink it (the guidance in references/headroom.md).
REMEDIES: dict[str, str] = {
    "optimizer.step": "--optimizer-cuda-graph (capturable Adam, step graphed; megatron-core 0.19: full_iteration "
                      "only) or a fused multi-tensor Adam (the default TE/apex FusedAdam)",
    "optimizer.grad_norm_clip": "--clip-grad 0 skips the norm and its all-reduce; the norm's .item() is a host sync",
    "optimizer.prepare_grads": "bf16 (no loss scale): no found-inf check; --no-check-for-nan-in-loss-and-grad",
    "training_log": "--log-interval 100 (the loss .item() and reductions run when a line is printed), "
                    "no --log-throughput, --timing-log-level 0",
    "get_batch": "inside the graph under full_iteration; else a prefetching data loader (--num-workers)",
    "forward_backward": "cuda_graph_impl=full_iteration (one replay) or per-layer scopes (fewer launches)",
    "other": "--manual-gc --manual-gc-interval 100 (no Python GC pauses mid-step); timers at "
             "--timing-log-level 0; --no-barrier-with-L1-time",
}
SYNC_EVENTS = ("cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaMemcpy")


class Headroom:
    """Per-range host milliseconds over the active (profiled) steps."""

    def __init__(self) -> None:
        self.active = False
        self.steps = 0
        self.ms: dict[str, float] = defaultdict(float)
        self.sync_ms: dict[str, float] = defaultdict(float)
        self._depth: dict[str, int] = defaultdict(int)

    def timed(self, name: str, fn: Callable) -> Callable:
        def wrapper(*args: Any, **kwargs: Any):
            if not self.active or self._depth[name]:
                return fn(*args, **kwargs)
            from torch.profiler import record_function

            self._depth[name] += 1
            start = time.perf_counter()
            try:
                with record_function(f"headroom::{name}"):
                    return fn(*args, **kwargs)
            finally:
                self.ms[name] += (time.perf_counter() - start) * 1000.0
                self._depth[name] -= 1

        wrapper.__wrapped__ = fn  # type: ignore[attr-defined]
        return wrapper

    def profiled(self, prof: Any) -> None:
        """One profiled step ended: count it and add its synchronisations per range."""
        self.steps += 1
        for name, ms in sync_ms_by_range(prof).items():
            self.sync_ms[name] += ms

    def report(self) -> dict[str, Any]:
        """ms per step per range, ``other`` = train_step less the top-level named parts."""
        if not self.steps:
            return {}
        per = {k: round(v / self.steps, 4) for k, v in self.ms.items()}
        if "train_step" in per:  # training_log runs after train_step returns, outside it
            top = per.get("forward_backward", 0.0) + per.get("optimizer.step", 0.0)
            per["other"] = round(max(0.0, per["train_step"] - top), 4)
        syncs = {k: round(v / self.steps, 4) for k, v in self.sync_ms.items()}
        return {"steps": self.steps, "host_ms_per_step": per, "sync_ms_per_step": syncs,
                "remedies": {k: REMEDIES[k] for k in per if k in REMEDIES}}


def install(training: Any, headroom: Headroom) -> None:
    """Wrap Megatron-LM's ``train_step``/``training_log`` (module attributes ``train()`` looks up at
    call time), the forward-backward function ``train_step`` is given, and the optimizer methods."""
    from megatron.core.optimizer import optimizer as opt

    orig_step = training.train_step

    def train_step(*args: Any, **kwargs: Any):
        if headroom.active:
            if "forward_backward_func" in kwargs:
                kwargs["forward_backward_func"] = headroom.timed("forward_backward", kwargs["forward_backward_func"])
            elif len(args) > 6:
                args = (*args[:6], headroom.timed("forward_backward", args[6]), *args[7:])
        return headroom.timed("train_step", orig_step)(*args, **kwargs)

    training.train_step = train_step
    if hasattr(training, "training_log"):
        training.training_log = headroom.timed("training_log", training.training_log)
    for cls in (getattr(opt, n, None) for n in ("MixedPrecisionOptimizer", "FP32Optimizer", "ChainedOptimizer")):
        if cls is None:
            continue
        for meth, name in (("step", "optimizer.step"), ("prepare_grads", "optimizer.prepare_grads"),
                           ("clip_grad_norm", "optimizer.grad_norm_clip")):
            if meth in cls.__dict__:
                setattr(cls, meth, headroom.timed(name, cls.__dict__[meth]))


def sync_ms_by_range(prof: Any) -> dict[str, float]:
    """Host time spent blocked in CUDA synchronisations, by the innermost ``headroom::`` range that
    contains it (``outside`` when none does), over a finished CPU+CUDA profile."""
    ranges, syncs = [], []
    for e in prof.events():
        name = e.name
        if name.startswith("headroom::"):
            ranges.append((e.time_range.start, e.time_range.end, name[len("headroom::"):]))
        elif name in SYNC_EVENTS:
            syncs.append((e.time_range.start, e.time_range.end))
    out: dict[str, float] = defaultdict(float)
    for s, e in syncs:
        inside = [(re - rs, n) for rs, re, n in ranges if rs <= s and e <= re]
        out[min(inside)[1] if inside else "outside"] += (e - s) / 1000.0
    return {k: round(v, 4) for k, v in out.items()}
