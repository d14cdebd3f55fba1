"""Megatron-LM per-iteration log lines for the harness worker's steps (pure; no torch).

The worker prints one such line per step so that ``skill-tools logs eager.log graph.log``
compares two harness runs exactly as it compares two Megatron-LM runs. The text follows
``training_log`` in Megatron-LM ``megatron/training/training.py`` (core_v0.19.0 l.2844-2897) with
``log_interval`` 1, and carries only what the worker knows:

* elapsed time per iteration: the step's CUDA-event time (Megatron-LM prints its host
  ``interval-time`` timer; the worker cannot read that without synchronising each step);
* ``lm loss``: the step's token-averaged loss (rank 0's); printed only when ``>= 0``, as
  Megatron-LM does, so a NaN loss shows as ``number of nan iterations:   1``;
* learning rate, global batch size, consumed samples (``iteration * global batch size``);
* ``loss scale: 1.0`` and no skipped iterations: bf16 has no grad scaler, so MCore's optimizer
  reports scale 1.0 and never skips an update.

No throughput, grad norm or params norm: the worker does not compute them.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Sequence

TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M:%S.%f"  # training.py core_v0.19.0 l.2844


def format_iteration_line(
    iteration: int,
    train_iters: int,
    *,
    elapsed_ms: float,
    loss: float | None,
    learning_rate: float,
    global_batch_size: int,
    consumed_samples: int,
    timestamp: datetime | None = None,
) -> str:
    """One ``training_log`` line; ``iteration`` is 1-based, as Megatron-LM counts."""
    ts = (timestamp or datetime.now()).strftime(TIMESTAMP_FORMAT)
    line = f" [{ts}]"
    line += " iteration {:8d}/{:8d} |".format(iteration, train_iters)
    line += " consumed samples: {:12d} |".format(consumed_samples)
    line += " elapsed time per iteration (ms): {:.1f} |".format(elapsed_ms)
    line += f" learning rate: {learning_rate:.6E} |"
    line += f" global batch size: {global_batch_size:5d} |"
    if loss is not None and loss >= 0.0:
        line += " {}: {:.6E} |".format("lm loss", loss)
    line += f" loss scale: {1.0:.1f} |"
    line += " number of skipped iterations: {:3d} |".format(0)
    nan = int(loss is not None and not math.isfinite(loss))
    line += " number of nan iterations: {:3d} |".format(nan)
    return line


def iteration_lines(
    step_ms: Sequence[float],
    losses: Sequence[float],
    *,
    first: int,
    train_iters: int,
    learning_rate: float,
    global_batch_size: int,
    timestamp: datetime | None = None,
) -> list[str]:
    """Lines for the 0-based steps ``first .. first + len(step_ms) - 1`` (printed 1-based)."""
    if len(step_ms) != len(losses):
        raise ValueError(f"{len(step_ms)} step times but {len(losses)} losses")
    out = []
    for k, (ms, loss) in enumerate(zip(step_ms, losses)):
        it = first + k + 1
        out.append(format_iteration_line(
            it, train_iters, elapsed_ms=ms, loss=loss, learning_rate=learning_rate,
            global_batch_size=global_batch_size, consumed_samples=it * global_batch_size,
            timestamp=timestamp,
        ))
    return out
