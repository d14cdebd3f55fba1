"""The versioned results file of a training benchmark (``kind: "training"``).

Other tools read these files (card.yaml / BENCHMARK.md generation), so the field names are
a contract: bump :data:`SCHEMA_VERSION` when one changes meaning. Numbers are aggregated here
from the workers' raw per-trial results with the shared :mod:`skill_tools.stats`.
"""

from __future__ import annotations

import datetime as _dt
import json
import subprocess
from pathlib import Path
from typing import Any, Iterable

from skill_tools.stats import ratio_ci, summarize


def driver_version() -> str | None:
    """The NVIDIA driver version for a results file's ``env`` block (None without nvidia-smi)."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else None
    except (OSError, subprocess.SubprocessError, IndexError):
        return None

SCHEMA_VERSION = 1
#: Passed through from an engine's worker record (engine megatron-lm) into ``variants[]``.
ENGINE_FIELDS = ("engine", "graph_flags", "megatron_training", "capture_iteration", "capture_step_ms",
                 "substitutions", "log_failures", "headroom")
LOSS_TOLERANCE = 1e-3

VARIANT_FIELDS = (
    "name", "impl", "modules", "optimizer_graph", "captured", "replayed", "graphs_count",
    "error_class", "evidence", "step_ms", "speedup_vs_eager", "loss_max_abs_delta", "memory",
    "gpu_busy_fraction", "kernel_ms_per_step", "raw_step_ms",
)
TOP_FIELDS = ("schema_version", "kind", "date", "env", "workload", "variants")


def _ok_trials(trials: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [t for t in trials if t.get("worker") and t["worker"].get("ok")]


def aggregate_variant(spec: dict[str, Any], trials: list[dict[str, Any]],
                      eager: dict[str, Any] | None) -> dict[str, Any]:
    """One ``variants[]`` entry from a variant's trials (each: {"worker": {...}|None, "isolation": {...}}).

    ``eager`` is the already aggregated baseline entry (with its ``losses``), or None.
    """
    ok = _ok_trials(trials)
    failed = [t for t in trials if t not in ok]
    raw: list[float] = [x for t in ok for x in t["worker"].get("raw_step_ms", [])]
    first = ok[0]["worker"] if ok else (trials[0].get("worker") or {} if trials else {})
    entry: dict[str, Any] = {
        "name": spec["name"],
        "impl": spec["impl"],
        "modules": list(spec.get("modules") or []),
        "optimizer_graph": bool(spec.get("optimizer_graph")),
        "capturable_optimizer": bool(spec.get("capturable_optimizer")),
        **({"manual_gc": True} if spec.get("manual_gc") else {}),
        "layer_spec": spec.get("layer_spec", "te"),
        "captured": bool(ok) and all(t["worker"].get("captured") for t in ok),
        "replayed": bool(ok) and all(t["worker"].get("replayed") for t in ok),
        "graphs_count": first.get("graphs_count", 0) if ok else 0,
        "graph_records": first.get("graph_records", {}) if ok else {},
        "replays_per_step": first.get("replays_per_step") if ok else None,
        "error_class": None,
        "evidence": None,
        "trials": [_trial_summary(t) for t in trials],
        "step_ms": summarize(raw).to_dict() if raw else None,
        "speedup_vs_eager": None,
        "loss_max_abs_delta": None,
        "memory": first.get("memory") if ok else None,
        "kernel_ms_per_step": None,
        "gpu_busy_fraction": None,
        "capture_s": first.get("capture_s") if ok else None,
        # The stream the worker ran on ("auto" in the spec is resolved there, where torch is).
        "capture_stream": first.get("capture_stream") or spec.get("capture_stream"),
        "raw_step_ms": raw,
    }
    # What an engine that runs a real entry point knows beyond the proxy fields: the exact flags it
    # passed, the iteration that captured, what it substituted, the failure lines of its log.
    for key in ENGINE_FIELDS:
        if first.get(key) is not None:
            entry[key] = first[key]
    if failed:
        iso = failed[0].get("isolation") or {}
        worker = failed[0].get("worker") or {}
        entry["error_class"] = iso.get("error_class") or ("worker_error" if worker else "no_result")
        entry["evidence"] = iso.get("evidence") or worker.get("exception")
        entry["exception"] = worker.get("exception")
        entry["failed_phase"] = worker.get("phase")
        if not ok:
            entry["captured"] = bool(worker.get("captured"))
    kernels = [t["worker"]["kernel_ms_per_step"] for t in ok if t["worker"].get("kernel_ms_per_step")]
    if kernels and entry["step_ms"]:
        k = sorted(kernels)[len(kernels) // 2]
        entry["kernel_ms_per_step"] = round(k, 5)
        entry["gpu_busy_fraction"] = round(min(1.0, k / entry["step_ms"]["median"]), 4)
    # Per-step losses of the first good trial, every step from the first (warmup included):
    # what loss parity is computed from, kept so any two variants can be compared later.
    entry["losses"] = first.get("losses") if ok else None
    # Engine bridge: the overrides Bridge parsed, its graph settings, and train.py's teardown line.
    if "teardown_observed" in first:
        entry["teardown_observed"] = bool(ok) and all(t["worker"].get("teardown_observed") for t in ok)
    for key in ("overrides", "bridge_graph_config", "bridge_refusal"):
        if first.get(key) is not None:
            entry[key] = first[key]
    if eager is not None and eager.get("raw_step_ms") and raw:
        point, lo, hi = ratio_ci(eager["raw_step_ms"], raw)
        entry["speedup_vs_eager"] = {"point": round(point, 4), "ci95_low": round(lo, 4), "ci95_high": round(hi, 4)}
    if eager is not None:
        entry["loss_max_abs_delta"] = max_abs_delta(eager.get("losses"), entry["losses"])
        entry["loss_ok"] = entry["loss_max_abs_delta"] is not None and entry["loss_max_abs_delta"] <= LOSS_TOLERANCE
    return entry


def max_abs_delta(a: list[float] | None, b: list[float] | None) -> float | None:
    """Largest |a_i - b_i| over the steps both runs have; None when either has no losses."""
    if not a or not b:
        return None
    return max(abs(x - y) for x, y in zip(a, b))


def is_baseline(spec: dict[str, Any]) -> bool:
    """The eager run every A/B is measured against: no graph and the default (non-capturable) Adam."""
    return (spec.get("impl") in (None, "none") and not spec.get("optimizer_graph")
            and not spec.get("capturable_optimizer"))


def loss_pairs(variants: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """max |Δloss| between every two variants that ran: locates where a loss difference enters
    (for example capturable Adam's kernel vs the optimizer graph's replay)."""
    ran = [v for v in variants if v.get("losses")]
    return [{"a": a["name"], "b": b["name"], "max_abs_delta": max_abs_delta(a["losses"], b["losses"])}
            for i, a in enumerate(ran) for b in ran[i + 1:]]


def _trial_summary(trial: dict[str, Any]) -> dict[str, Any]:
    iso = trial.get("isolation") or {}
    worker = trial.get("worker") or {}
    raw = worker.get("raw_step_ms") or []
    return {
        "trial": trial.get("trial"),
        "returncode": iso.get("returncode"),
        "wall_s": iso.get("wall_s"),
        "log": iso.get("log_path"),
        "median_ms": sorted(raw)[len(raw) // 2] if raw else None,
    }


def build_results(specs: list[dict[str, Any]], trials_by_name: dict[str, list[dict[str, Any]]], *,
                  workload: dict[str, Any], kind: str = "training", date: str | None = None,
                  extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The whole results document; the first :func:`is_baseline` spec is the baseline."""
    env: dict[str, Any] = {}
    for trials in trials_by_name.values():
        for t in _ok_trials(trials):
            env = t["worker"].get("env") or env
            if env:
                break
        if env:
            break
    # The baseline is aggregated first, wherever it is listed, so every other variant has it.
    base = next((spec for spec in specs if is_baseline(spec)), None)
    eager = aggregate_variant(base, trials_by_name.get(base["name"], []), None) if base else None
    variants = [eager if spec is base else aggregate_variant(spec, trials_by_name.get(spec["name"], []), eager)
                for spec in specs]
    doc = {
        "schema_version": SCHEMA_VERSION,
        "kind": kind,
        "date": date or _dt.date.today().isoformat(),
        "env": {k: env.get(k) for k in ("gpu", "driver", "torch", "megatron_core", "transformer_engine", "cuda")},
        "workload": workload,
        "variants": variants,
        "loss_pairs": loss_pairs(variants),
    }
    if extra:
        doc.update(extra)
    return doc


def validate_results(doc: Any) -> list[str]:
    """Problems with a results document (empty when it follows the schema)."""
    problems: list[str] = []
    if not isinstance(doc, dict):
        return ["results must be a JSON object"]
    for key in TOP_FIELDS:
        if key not in doc:
            problems.append(f"missing top-level field {key!r}")
    if doc.get("schema_version") != SCHEMA_VERSION:
        problems.append(f"schema_version {doc.get('schema_version')!r} != {SCHEMA_VERSION}")
    if doc.get("kind") not in ("training", "inference", "precheck"):
        problems.append(f"kind {doc.get('kind')!r} is not training/inference/precheck")
    variants = doc.get("variants")
    if not isinstance(variants, list):
        return problems + ["variants must be a list"]
    for i, v in enumerate(variants):
        for key in VARIANT_FIELDS:
            if key not in v:
                problems.append(f"variants[{i}] missing {key!r}")
        sm = v.get("step_ms")
        if sm is not None:
            for key in ("n", "median", "mean", "p10", "p90", "ci95_low", "ci95_high"):
                if key not in sm:
                    problems.append(f"variants[{i}].step_ms missing {key!r}")
        sp = v.get("speedup_vs_eager")
        if sp is not None and not all(k in sp for k in ("point", "ci95_low", "ci95_high")):
            problems.append(f"variants[{i}].speedup_vs_eager needs point/ci95_low/ci95_high")
    return problems


def write_results(doc: dict[str, Any], path: Path) -> Path:
    from skill_tools.errors import InputError
    from skill_tools.output_file import portable_paths, write_text

    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a file where the folder should be, no permission: one line, not a traceback
        raise InputError("--out", f"cannot create folder {path.parent}: {exc.strerror or exc}") from None
    write_text(path, json.dumps(portable_paths(doc, path.parent), indent=1) + "\n", flag="--out")  # atomic, no FIFO
    return path


def load_results(path: Path) -> dict[str, Any]:
    from skill_tools.errors import InputError

    from skill_tools.input_file import read_text

    text = read_text(path, limit=64 * 1024 * 1024, what="results file")  # bounded, decoded, or one-line error
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(str(path), f"not JSON: {exc.msg}", line=exc.lineno) from None
    except ValueError as exc:  # an integer of more than 4300 digits
        raise InputError(str(path), f"not a results file: {str(exc).split(';')[0]}") from None
    except RecursionError:
        raise InputError(str(path), "JSON nested too deeply; not a results file") from None
    problems = validate_results(doc)
    if problems:
        raise InputError(str(path), "not a results file: " + "; ".join(problems[:3]),
                         hint="produce it with skill-tools bench --out DIR")
    return doc


def variant(doc: dict[str, Any], name: str) -> dict[str, Any] | None:
    return next((v for v in doc.get("variants", []) if v.get("name") == name), None)


def names(doc: dict[str, Any]) -> Iterable[str]:
    return [v.get("name") for v in doc.get("variants", [])]
