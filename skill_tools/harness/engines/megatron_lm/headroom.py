"""Where the host time of a training step goes, inside Megatron-LM's own loop (GPU-subprocess side).

After capture, a graphed step is still slower than its kernels: what is left is host work the
graph does not cover. This module times, for the profiled steps only, the parts of Megatron-LM's
``train_step`` that users can switch off or graph, by wrapping the framework's own functions
(called unchanged, with the same arguments):

- ``forward_backward``: the schedule (a graph replay under full-iteration capture);
- ``get_batch``: the pretrain script's batch read (inside ``forward_backward``);
- ``optimizer.step`` with its nested ``optimizer.prepare_grads`` and ``optimizer.grad_norm_clip``;
- ``zero_grad``: the DDP grad buffers' and the optimizer's zero-grad;
- ``stat_reductions``: ``train_step``'s all-reduces of the update flag and the grad norm across the
  model-parallel group, each read back with ``.item()``: the step's first host sync after the
  graph replays, so under a graph this is where the host waits for the GPU;
- ``rerun_state_machine``: the rerun state machine's per-step checks;
- ``lr_scheduler``: the learning-rate scheduler's step;
- ``train_step``: the whole call, so ``other`` (loss bookkeeping, timers, argument reads) is what
  the named parts leave;
- ``training_log``: loss reduction, logging syncs, throughput and timers output (after ``train_step``);
- ``iteration``: one pass of ``train()``'s loop, from one ``train_step`` call to the next, so
  ``loop`` (the loop's own work: exit checks, timers, GC when Python runs it, the bench's CUDA
  events) is what ``train_step`` and ``training_log`` leave.

The ranges are timed with ``time.perf_counter`` over the measured steps (a few microseconds per
range, no profiler); :meth:`Headroom.iteration_start` opens and closes each step's window.
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
    "zero_grad": "inside the graph only with megatron-core's full-iteration capture of the whole train step "
                 "(not in 0.19); small: a memset per grad buffer",
    "stat_reductions": "a host wait for the GPU, not host work, when the step is GPU-bound; with graphs it is the "
                       "point where the replayed step finishes; nothing removes it in 0.19 (train_step reads the "
                       "update flag and the grad norm every step)",
    "rerun_state_machine": "--rerun-mode disabled",
    "lr_scheduler": "none: Python arithmetic per parameter group",
    "other": "timers at --timing-log-level 0; --no-barrier-with-L1-time",
    "loop": "--manual-gc --manual-gc-interval 100 (no Python GC pauses mid-step); --log-interval 100",
}
#: The order a report lists the ranges in: the step from the top, then the loop around it.
ORDER = ("iteration", "train_step", "forward_backward", "get_batch", "optimizer.step", "optimizer.prepare_grads",
         "optimizer.grad_norm_clip", "zero_grad", "stat_reductions", "rerun_state_machine", "lr_scheduler", "other",
         "training_log", "loop")
#: Ranges timed inside ``train_step`` at its top level: ``other`` is ``train_step`` less these.
TOP_LEVEL = ("forward_backward", "optimizer.step", "zero_grad", "stat_reductions", "rerun_state_machine",
             "lr_scheduler")
SYNC_EVENTS = ("cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaMemcpy")


class Headroom:
    """Per-range host milliseconds over the active (profiled) steps."""

    def __init__(self) -> None:
        self.active = False
        self.steps = 0
        self.sync_steps = 0
        self.ms: dict[str, float] = defaultdict(float)
        self.sync_ms: dict[str, float] = defaultdict(float)
        self._depth: dict[str, int] = defaultdict(int)
        self._iteration_t0: float | None = None
        #: (owner, attribute, original) of every wrapped function, for :func:`uninstall`.
        self.patched: list[tuple[Any, str, Any]] = []

    def wrap(self, owner: Any, attr: str, name: str) -> None:
        """Replace ``owner.attr`` (a module function or a class's own method) by its timed wrapper."""
        original = owner.__dict__[attr] if isinstance(owner, type) else getattr(owner, attr)
        self.patched.append((owner, attr, original))
        setattr(owner, attr, self.timed(name, original))

    def iteration_start(self, active: bool) -> None:
        """A ``train_step`` call begins: close the previous step's iteration range (when it was
        timed) and open this one's window."""
        now = time.perf_counter()
        if self.active and self._iteration_t0 is not None:
            self.ms["iteration"] += (now - self._iteration_t0) * 1000.0
            self.steps += 1
        self.active = active
        self._iteration_t0 = now if active else None

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
        """One profiled step ended: add its synchronisations per range."""
        self.sync_steps += 1
        for name, ms in sync_ms_by_range(prof).items():
            self.sync_ms[name] += ms

    def report(self) -> dict[str, Any]:
        """ms per step per range over the timed steps; ``other`` = train_step less its top-level named
        parts, ``loop`` = iteration less train_step and training_log."""
        if not self.steps:
            return {}
        per = {k: round(v / self.steps, 4) for k, v in self.ms.items()}
        if "train_step" in per:  # training_log runs after train_step returns, outside it
            top = sum(per.get(k, 0.0) for k in TOP_LEVEL)
            per["other"] = round(max(0.0, per["train_step"] - top), 4)
            if "iteration" in per:
                per["loop"] = round(max(0.0, per["iteration"] - per["train_step"] - per.get("training_log", 0.0)), 4)
        syncs = {k: round(v / self.sync_steps, 4) for k, v in self.sync_ms.items()} if self.sync_steps else {}
        return {"steps": self.steps, "host_ms_per_step": per, "sync_ms_per_step": syncs,
                "remedies": {k: REMEDIES[k] for k in per if k in REMEDIES}}


_OPT = "megatron.core.optimizer.optimizer"
#: (module, class, method, range) of the framework methods timed inside ``train_step``.
METHOD_RANGES: tuple[tuple[str, str, str, str], ...] = (
    *((_OPT, cls, meth, name) for cls in ("MixedPrecisionOptimizer", "FP32Optimizer", "ChainedOptimizer")
      for meth, name in (("step", "optimizer.step"), ("prepare_grads", "optimizer.prepare_grads"),
                         ("clip_grad_norm", "optimizer.grad_norm_clip"))),
    *((_OPT, cls, "zero_grad", "zero_grad")
      for cls in ("MixedPrecisionOptimizer", "Float16OptimizerWithFloat16Params", "FP32Optimizer", "ChainedOptimizer")),
    ("megatron.core.optimizer.distrib_optimizer", "DistributedOptimizer", "zero_grad", "zero_grad"),
    ("megatron.core.distributed.distributed_data_parallel", "DistributedDataParallel", "zero_grad_buffer", "zero_grad"),
    ("megatron.core.rerun_state_machine", "RerunStateMachine", "should_run_forward_backward", "rerun_state_machine"),
    ("megatron.core.rerun_state_machine", "RerunStateMachine", "should_checkpoint_and_exit", "rerun_state_machine"),
    ("megatron.core.optimizer_param_scheduler", "OptimizerParamScheduler", "step", "lr_scheduler"),
)


def install(training: Any, headroom: Headroom) -> None:
    """Wrap Megatron-LM's ``train_step``/``training_log`` (module attributes ``train()`` looks up at
    call time), the forward-backward function ``train_step`` is given, its model-parallel stat
    reductions, and the framework methods of :data:`METHOD_RANGES` that exist in this version."""
    import importlib

    orig_step = training.train_step

    def train_step(*args: Any, **kwargs: Any):
        if headroom.active:
            if "forward_backward_func" in kwargs:
                kwargs["forward_backward_func"] = headroom.timed("forward_backward", kwargs["forward_backward_func"])
            elif len(args) > 6:
                args = (*args[:6], headroom.timed("forward_backward", args[6]), *args[7:])
        return headroom.timed("train_step", orig_step)(*args, **kwargs)

    headroom.patched.append((training, "train_step", orig_step))
    training.train_step = train_step
    for fn, name in (("training_log", "training_log"), ("logical_and_across_model_parallel_group", "stat_reductions"),
                     ("reduce_max_stat_across_model_parallel_group", "stat_reductions")):
        if hasattr(training, fn):  # looked up in training's globals at call time
            headroom.wrap(training, fn, name)
    for module, cls_name, meth, name in METHOD_RANGES:
        try:
            cls = getattr(importlib.import_module(module), cls_name)
        except (ImportError, AttributeError):
            continue
        if meth in cls.__dict__:  # the class's own method, not an inherited one (wrapped once, at its owner)
            headroom.wrap(cls, meth, name)


def uninstall(headroom: Headroom) -> None:
    """Put every wrapped function back (newest first)."""
    while headroom.patched:
        owner, attr, original = headroom.patched.pop()
        setattr(owner, attr, original)


def sync_ms_by_range(prof: Any) -> dict[str, float]:
    """Host time spent blocked in CUDA synchronisations, by the innermost ``headroom::`` range that
    contains it (``outside`` when none does), over a finished CPU+CUDA profile. A CUDA-only profile
    (the bench's own) records the runtime's synchronisations but no host ranges: there the time is
    reported as ``all ranges`` (the step's total), never as ``outside``."""
    ranges, syncs = [], []
    for e in prof.events():
        name = e.name
        if name.startswith("headroom::"):
            ranges.append((e.time_range.start, e.time_range.end, name[len("headroom::"):]))
        elif name in SYNC_EVENTS:
            syncs.append((e.time_range.start, e.time_range.end))
    out: dict[str, float] = defaultdict(float)
    if not ranges:
        return {"all ranges": round(sum(e - s for s, e in syncs) / 1000.0, 4)} if syncs else {}
    for s, e in syncs:
        inside = [(re - rs, n) for rs, re, n in ranges if rs <= s and e <= re]
        out[min(inside)[1] if inside else "outside"] += (e - s) / 1000.0
    return {k: round(v, 4) for k, v in out.items()}
