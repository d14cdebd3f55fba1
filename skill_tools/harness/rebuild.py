"""Rebuild an engine ``megatron-lm`` or ``bridge`` results file from the run's own logs and sidecars.

The numbers of a Megatron-LM (or Megatron Bridge) run live in its log (iteration lines, capture messages, failure
text) and in the sidecar the engine wrote next to it (CUDA-event times, graph counters, peak
memory). The results JSON is derived from those two, so it can be derived again, on any machine
and without a GPU, when the log reader or the aggregation improves, or to check that a committed
results file really follows from the committed logs. Nothing is re-measured.

Layout read (what ``skill-tools bench --engine megatron-lm|bridge --out DIR`` writes)::

    RUN_DIR/logs/<variant slug>-t<trial>.log[.gz]
    RUN_DIR/raw/<variant slug>-t<trial>.sidecar.json
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skill_tools.config.era import resolve_era
from skill_tools.errors import InputError
from skill_tools.harness.engines import REGISTRY
from skill_tools.harness.engines.megatron_lm.cli import run_files
from skill_tools.harness.isolation import classify
from skill_tools.harness.results import build_results, load_results
from skill_tools.harness.spec import VariantSpec
from skill_tools.logs.reader import read_lines


def _specs(doc: dict[str, Any]) -> list[VariantSpec]:
    wl = doc.get("workload") or {}
    engine = REGISTRY.get(wl.get("engine") or "proxy")
    if engine is None or not engine.rebuildable:
        rebuildable = ", ".join(e.name for e in REGISTRY.values() if e.rebuildable)
        raise InputError("--rebuild", f"results of engine {wl.get('engine') or 'proxy'!r} cannot be rebuilt from logs",
                         hint=f"only the results of engines {rebuildable} are derived from the run's own log")
    first = int(wl["warmup_steps"]) + 1 + int(wl["settle_steps"])
    common = dict(engine=wl["engine"], workload=wl["workload"], size=wl["size"], steps=int(wl["steps"]),
                  warmup_steps=int(wl["warmup_steps"]), settle_steps=int(wl["settle_steps"]),
                  profile_steps=int(wl["train_iters"]) - first - int(wl["steps"]), nproc=int(wl.get("nproc", 1)),
                  tp=int(wl.get("tp", 1)), pp=int(wl.get("pp", 1)), vpp_layers=wl.get("vpp_layers"),
                  ep=int(wl.get("ep", 1)), num_microbatches=int(wl.get("num_microbatches", 1)),
                  layer_spec=wl.get("layer_spec", "te"),
                  capture_stream="default")
    if wl.get("config") is not None:  # bench --config: the plan's run shape and layout
        shape = wl["shape"]
        common.update(size="tiny", workload="moe" if (shape.get("num_experts") or 0) > 1 else "dense",
                      model={"shape": shape, "layout": wl["layout"], "source": wl.get("config"),
                             "name": wl.get("size"), "plan": wl.get("plan")})
    return [VariantSpec(name=v["name"], impl=v["impl"], modules=tuple(v.get("modules") or ()),
                        optimizer_graph=bool(v.get("optimizer_graph")),
                        capturable_optimizer=bool(v.get("capturable_optimizer")),
                        manual_gc=bool(v.get("manual_gc")), **common)
            for v in doc["variants"]]


def _log(run_dir: Path, spec: VariantSpec, trial: int) -> Path | None:
    plain, _ = run_files(spec, trial, run_dir)
    for path in (plain, plain.with_name(plain.name + ".gz")):
        if path.exists():
            return path
    return None


def _lines(path: Path) -> list[str]:
    return [line.rstrip("\n") for line in read_lines(path)]


def rebuild(results_path: Path, run_dir: Path | None = None) -> dict[str, Any]:
    """The results document derived again from ``run_dir``'s logs and sidecars.

    ``run_dir`` defaults to the folder named like the results file (``X.json`` -> ``X/``), where
    the committed results keep their logs. Return codes and wall times come from the old
    document (the process is gone); everything else is read from the files again.
    """
    results_path = Path(results_path)
    old = load_results(results_path)
    run_dir = Path(run_dir) if run_dir is not None else results_path.with_suffix("")
    if not (run_dir / "logs").is_dir():
        raise InputError("--rebuild", f"{run_dir}/logs not found",
                         hint="pass the folder that holds the run's logs/ and raw/ with --run-dir")
    specs = _specs(old)
    era = resolve_era(old.get("env", {}).get("megatron_core") or None)
    old_trials = {v["name"]: {t["trial"]: t for t in v.get("trials", [])} for v in old["variants"]}
    by_name: dict[str, list[dict[str, Any]]] = {}
    engine = REGISTRY[specs[0].engine]
    for spec in specs:
        runs = []
        for trial in range(int(old["workload"]["trials"])):
            log = _log(run_dir, spec, trial)
            if log is None:
                continue
            before = old_trials.get(spec.name, {}).get(trial, {})
            returncode = before.get("returncode")
            error_class, evidence = classify(_lines(log), returncode, timed_out=False)
            iso = {"returncode": returncode, "timed_out": False, "wall_s": before.get("wall_s"),
                   "error_class": error_class, "evidence": evidence}
            runs.append(engine.rebuild_trial(spec, trial, iso, log, run_dir, era))
        by_name[spec.name] = runs
    record = engine.workload_record(specs[0], int(old["workload"]["trials"]))
    doc = build_results([s.to_dict() for s in specs], by_name, workload=record, date=old.get("date"))
    if old.get("notes"):
        doc["notes"] = old["notes"]
    doc["rebuilt_from_logs"] = True
    return doc
