"""Per-iteration, memory and timer line formats of Megatron-LM and Megatron Bridge.

Each pattern cites the upstream format string it matches. The per-iteration line is built as
`` [timestamp] iteration {:8d}/{:8d} |`` followed by `` key: value |`` fields, so it is parsed as
a fixed head (regex) plus a field list (split on ``|``, key/value on the last ``": "``).

Sources (read from the git mirrors):
- Megatron-LM ``megatron/training/training.py`` ``training_log``: core_v0.15.0 l.1591 (timestamp
  ``%Y-%m-%d %H:%M:%S``), core_v0.16.0 l.2033-2083 and core_v0.19.0 l.2844-2897 (``.%f`` added).
- Megatron Bridge ``src/megatron/bridge/training/utils/train_utils.py`` @067f987 l.1088-1146
  (timestamp without ``.%f``; ``Step Time : {:.2f}s GPU utilization: {:.1f}MODEL_TFLOP/s/GPU`` l.1050;
  memory ``(after N iterations) memory (GB)`` l.1146).
- Memory (MB): Megatron-LM ``megatron/training/utils/common_utils.py`` core_v0.19.0 l.321
  (``megatron/training/utils.py`` core_v0.15.0 l.266 with raw floats, core_v0.16.0 l.279 ``.2f``).
- Timers: ``megatron/core/timers.py`` core_v0.19.0 l.344-355.
"""

from __future__ import annotations

import re

# --- per-iteration line -------------------------------------------------------------------------
# Not anchored: srun/NeMo-Run prefixes and other ranks' text may precede it (log_formats §6.2).
# The timestamp is optional for pre-2024 Megatron (NVIDIA/Megatron-LM#516: "1:  iteration 3/ 286102 |").
# Matched at the position of "iteration " (found with str.find: no scan from column 0); the
# timestamp is then looked for just before it.
ITERATION_HEAD = re.compile(r"iteration\s+(?P<it>\d{1,18})/\s*(?P<total>\d{1,18}) \|")
TIMESTAMP_TAIL = re.compile(r"\[(?P<ts>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?P<us>\.\d{1,6})?)\]\s*\Z")
ITERATION_NEEDLE = "iteration "

# Field keys with fixed meaning -> attribute name on Iteration. Everything else ending in "loss"
# is a named loss; other numeric fields are kept in ``extra``.
FIELD_KEYS = {
    "consumed samples": "consumed_samples",
    "skipped samples": "skipped_samples",
    "elapsed time per iteration (ms)": "elapsed_ms",
    "throughput per GPU (TFLOP/s/GPU)": "tflops_per_gpu",
    "learning rate": "learning_rate",
    "global batch size": "global_batch_size",
    "loss scale": "loss_scale",
    "grad norm": "grad_norm",
    "num zeros": "num_zeros",
    "params norm": "params_norm",
    "number of skipped iterations": "skipped_iterations",
    "number of nan iterations": "nan_iterations",
}
# A genuine field key: lower-case words (``lm loss``, ``mtp_1 loss``, ``energy per GPU (J/iter/GPU)``).
# Text of another rank glued after the last " |" starts with a capital ("Number of ...") and is dropped.
FIELD_KEY = re.compile(r"[a-z][A-Za-z0-9_ ()/.-]*\Z")

# Megatron Bridge, printed by rank 0 just before each iteration line.
BRIDGE_STEP_TIME = re.compile(
    r"Step Time : (?P<s>[0-9.]+)s GPU utilization: (?P<tf>[0-9.]+|nan|inf)MODEL_TFLOP/s/GPU"
)

# --- memory reports ------------------------------------------------------------------------------
# "[Rank 0] (after 1 iterations) memory (MB) | allocated: 26222.72 | max allocated: ... "
# "[Rank 0] (after 1 iterations) memory (GB) | mem-allocated-gigabytes: 51.072 | ..."
MEMORY = re.compile(
    r"\[Rank (?P<rank>\d+)\] \((?P<when>[^)]*)\) memory \((?P<unit>MB|GB)\)(?P<rest> \|.*)"
)
MEMORY_NEEDLE = ") memory ("
MEMORY_AFTER_ITER = re.compile(r"after (\d+) iterations")
# Bridge GB keys (MEMORY_KEYS in train_utils.py, bytes renamed to gigabytes, /1e9) -> MLM names.
BRIDGE_MEMORY_KEYS = {
    "mem-allocated-gigabytes": "allocated",
    "mem-max-allocated-gigabytes": "max allocated",
    "mem-reserved-gigabytes": "reserved",
    "mem-max-reserved-gigabytes": "max reserved",
}
MIB = 1024.0 * 1024.0

# --- timers --------------------------------------------------------------------------------------
TIMER_HEADER = re.compile(r"(?P<kind>\(min, max\) time|max time|times) across ranks \(ms\):")
TIMER_MINMAX = re.compile(r"^\s{2,}(?P<name>\S.*?) \.*: \((?P<min>[0-9.]+), (?P<max>[0-9.]+)\)\s*$")
TIMER_MAX = re.compile(r"^\s{2,}(?P<name>\S.*?) \.*: (?P<max>[0-9.]+)\s*$")

# --- other markers used for format detection -----------------------------------------------------
BRIDGE_MARKERS = (
    "Starting training loop at iteration",  # Bridge train.py l.337
    "Setting rerun_state_machine.current_iteration",  # Bridge (MLM says "Overwriting ...")
    "Deleting CUDA graphs",  # Bridge train.py l.1677
    "MODEL_TFLOP/s/GPU",
)
MEGATRON_MARKERS = ("megatron", "Megatron", "training ...", "done with setup", "] datetime: ")
TRAINING_DONE = "[after training is done]"

FORMATS = {
    "megatron-lm": "Megatron-LM training_log, core_v0.16+ (timestamp with microseconds)",
    "megatron-lm-0.15-or-bridge": (
        "second-resolution timestamps without Bridge markers: Megatron-LM <= core_v0.15, or Megatron "
        "Bridge with its Step Time / memory (GB) lines absent"
    ),
    "megatron-lm-legacy": "Megatron-LM training_log without timestamp (2023 and earlier)",
    "megatron-bridge": "Megatron Bridge training_log (no microseconds; Step Time / memory (GB) lines)",
    "mcore-events": "no iteration lines; MCore logger lines (CUDA-graph events, errors) only",
    "traceback": "no iteration lines; Python tracebacks, exception lines or stack dumps (any stack)",
    "framework-log": "no iteration lines; error, CUDA-graph or framework lines of another stack",
    "generic-log": "no iteration lines; lines with log prefixes (timestamps, levels, ranks) and nothing to diagnose",
    "plain-text": "text with nothing recognisable (no log prefix, traceback or CUDA-graph line): nothing to read",
}
SUPPORTED = ", ".join(FORMATS)


def to_float(text: str) -> float | None:
    """Parse a printed number (``1.0``, ``6.000000E-05``, ``nan``, ``inf``); None when not a number."""
    try:
        return float(text)
    except ValueError:
        return None
