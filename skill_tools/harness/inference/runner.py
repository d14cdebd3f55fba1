"""CLI side of ``skill-tools bench --mode inference``: eager vs layer- vs block-scoped decode graphs.

Refuses bad input before any GPU work (a scope the installed megatron-core does not know, or one
the rule catalog rejects), then runs :mod:`skill_tools.harness.inference.worker` once per scope,
each in its own process (``run_isolated``), and turns the raw per-step times into statistics
(``skill_tools.stats``), a token-by-token parity verdict against eager, and a results JSON +
Markdown table + PNG plot. Cheap to import: no torch or megatron at module level.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import re
import sys
from pathlib import Path
from typing import Any, Sequence

from skill_tools.config.era import INFERENCE_SCOPES, Era, resolve_era
from skill_tools.config.model import CanonicalConfig
from skill_tools.errors import EXIT_FINDINGS, EXIT_OK, InputError
from skill_tools.harness.inference import parity as P
from skill_tools.harness.inference import workloads as IW
from skill_tools.harness.inference.report import portable_failure, render_markdown, write_outputs
from skill_tools.harness.inference.results import SCHEMA_VERSION, SAME_SHAPE_EAGER, assemble, environment
from skill_tools.harness.runner import require_gpu
from skill_tools.json_output import emit
WORKER = "skill_tools.harness.inference.worker"
WORKLOADS = tuple(IW.WORKLOADS)
#: ``bench --workload`` names (shared with training mode) -> inference workloads.
WORKLOAD_ALIASES = IW.ALIASES
#: MCore's capture summary (megatron/core/inference/engines/dynamic_engine.py, core_v0.19.0).
BUILT_RE = re.compile(r"> built cuda graph\(s\) in ([0-9.]+) sec")


# --------------------------------------------------------------------------------------------
# Input checks (no GPU touched)
# --------------------------------------------------------------------------------------------


def parse_int_list(text: str | Sequence[int], source: str) -> list[int]:
    if not isinstance(text, str):
        values = list(text)
    else:
        try:
            values = [int(x) for x in text.split(",") if x.strip()]
        except ValueError:
            raise InputError(source, f"{text!r} is not a comma-separated list of integers",
                             hint="e.g. --batch-sizes 1,2,4,8") from None
    if not values or any(v < 1 for v in values):
        raise InputError(source, f"{text!r}: need one or more positive integers", hint="e.g. 1,2,4,8")
    return sorted(dict.fromkeys(values))


def parse_scopes(text: str | Sequence[str], era: Era) -> list[str]:
    """Scopes to measure, eager (``none``) first; refuses what ``era`` does not know."""
    names = [s.strip() for s in (text.split(",") if isinstance(text, str) else text) if s.strip()]
    if not era.has_inference_scope:
        raise InputError(
            "--inference-scope",
            f"megatron-core {era.mcore_version} has no inference_cuda_graph_scope (added in 0.18)",
            hint=("on 0.16–0.17 inference graphs are cuda_graph_impl='local' (per layer)"
                  + (" or cuda_graph_scope=['full_iteration_inference'] (whole block)"
                     if "full_iteration_inference" in era.module_values else "")
                  + "; upgrade to megatron-core>=0.18 to benchmark none/layer/block"),
        )
    for name in names:
        if name == "full_iteration_inference":
            raise InputError("--inference-scope", "'full_iteration_inference' is the deprecated spelling",
                             hint="use --inference-scope none,block (MCore migrates it to "
                                  "inference_cuda_graph_scope='block' with cuda_graph_impl='local')")
        if name not in INFERENCE_SCOPES:
            raise InputError("--inference-scope", f"unknown inference scope {name!r}",
                             hint=f"choose from {', '.join(INFERENCE_SCOPES)}")
    if not names:
        raise InputError("--inference-scope", "no scope given", hint="e.g. none,layer,block")
    ordered = ["none"] + [n for n in INFERENCE_SCOPES if n in names and n != "none"]
    return ordered


def scope_config(scope: str) -> CanonicalConfig:
    """The model settings one variant runs with, as the rule catalog sees them."""
    cfg = CanonicalConfig()
    cfg.set("model.cuda_graph_impl", "none" if scope == "none" else "local")
    cfg.set("model.inference_cuda_graph_scope", scope)
    return cfg


def check_rules(scopes: list[str], era: Era) -> None:
    """Refuse a variant the rule catalog flags as an error."""
    from skill_tools.rules.engine import check

    for scope in scopes:
        # Only the inference-scope rules judge a variant: training rules (e.g. the TE RNG tracker
        # for training graphs) do not apply to the engine, which uses the inference RNG tracker.
        errors = [f for f in check(scope_config(scope), era)
                  if f.severity == "error" and "model.inference_cuda_graph_scope" in (f.keys or ())]
        if errors:
            f = errors[0]
            fix = ", ".join(f"{k}={v!r}" for k, v in (f.fix or {}).items())
            raise InputError("--inference-scope", f"scope {scope!r}: [{f.rule}] {f.message}",
                             hint=f"fix: {fix}" if fix else None)


# --------------------------------------------------------------------------------------------
# Running the variants
# --------------------------------------------------------------------------------------------


def worker_args(scope: str, batch_sizes: list[int], decode_tokens: int, trials: int, warmup: int,
                workload: str, out_json: Path) -> list[str]:
    """Worker command line of one run key (a scope, :data:`SAME_SHAPE_EAGER`, or either with the
    batch-invariant suffix of :mod:`inference_parity`)."""
    return ["--scope", P.run_scope(scope), "--batch-sizes", ",".join(map(str, batch_sizes)),
            "--decode-tokens", str(decode_tokens), "--trials", str(trials), "--warmup", str(warmup),
            "--workload", workload, "--out", str(out_json)] + P.worker_flags(scope)


def run_variant(scope: str, argv: list[str], log_path: Path, timeout_s: float) -> dict[str, Any]:
    from skill_tools.harness.isolation import run_isolated

    res = run_isolated(WORKER, argv, nproc=1, timeout_s=timeout_s, log_path=log_path)
    return {"scope": scope, "ok": res.ok, "returncode": res.returncode, "timed_out": res.timed_out,
            "error_class": res.error_class, "evidence": res.evidence, "log_path": str(log_path),
            "tail": res.tail if not res.ok else None}


def capture_from_log(log_path: Path) -> float | None:
    """Capture seconds from MCore's own ``> built cuda graph(s) in X sec`` line."""
    try:
        for line in Path(log_path).read_text(errors="replace").splitlines():
            m = BUILT_RE.search(line)
            if m:
                return float(m.group(1))
    except OSError:
        pass
    return None


def rebuild(log_dir: Path, workload: str, env: dict[str, Any], date: str) -> dict[str, Any]:
    """Re-assemble a results document from the workers' raw JSON files and logs (no GPU)."""
    raw: dict[str, dict[str, Any]] = {}
    keys = (*INFERENCE_SCOPES, SAME_SHAPE_EAGER)
    for scope in keys + tuple(k + P.BATCH_INVARIANT for k in keys):
        path = Path(log_dir) / f"inference-{workload}-{scope}.json"
        if path.exists():
            raw[scope] = json.loads(path.read_text())
            raw[scope]["capture"]["capture_s_from_log"] = capture_from_log(path.with_suffix(".log"))
    if "none" not in raw:
        raise InputError(str(log_dir), f"no eager worker output inference-{workload}-none.json")
    result = assemble(raw, [], date)
    result["env"] = env
    return result


# --------------------------------------------------------------------------------------------
# Entry point (called by skill_tools/commands/bench.py for --mode inference)
# --------------------------------------------------------------------------------------------


def _get(args: argparse.Namespace, name: str, default: Any) -> Any:
    value = getattr(args, name, None)
    return default if value is None else value


def batch_invariant_runs(text: str | Sequence[str], era: Era) -> list[str]:
    """Run keys for ``--batch-invariant-scopes`` (e.g. ``block``): batch-invariant eager at natural
    shapes plus each named graphed scope, all under ``batch_invariant_mode``."""
    names = [n for n in parse_scopes(text, era) if n != "none"] if (text and str(text).strip()) else []
    return ["none" + P.BATCH_INVARIANT] + [n + P.BATCH_INVARIANT for n in names] if names else []


def _stem(args: argparse.Namespace, workload: str, date: str) -> str:
    return getattr(args, "name", None) or f"{date}-inference-{'' if workload == 'tiny-gpt' else workload + '-'}unmeasured"


def report_unavailable(args: argparse.Namespace, data: dict[str, Any], out_dir: Path) -> int:
    """A results document that says why the workload was not measured (and where it was tried)."""
    date = _get(args, "date", _dt.date.today().isoformat())
    doc = {"schema_version": SCHEMA_VERSION, "kind": "inference", "date": date, "status": "unavailable",
           "env": environment(data.get("env", {})), "workload": data.get("workload", {}),
           "unavailable": data["unavailable"], "variants": [], "failures": [], "notes": []}
    spec = IW.WORKLOADS.get(doc["workload"].get("name", ""))
    doc["how_to_fix"] = IW.how_to_get(spec) if spec else []
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{_stem(args, doc['workload'].get('name', 'unknown'), date)}.json"
    path.write_text(json.dumps(doc, indent=1, default=str) + "\n")
    if getattr(args, "json", False):
        emit("bench", {"status": "unavailable", "unavailable": doc["unavailable"], "how_to_fix": doc["how_to_fix"],
                       "artifacts": {"json": str(path)}}, kind="inference-unavailable", indent=1)
        return EXIT_FINDINGS
    print(f"{doc['workload'].get('name')}: not measured on {doc['env'].get('gpu')}:\n  - "
          + "\n  - ".join(doc["unavailable"] + doc["how_to_fix"]) + f"\nwrote {path}")
    return EXIT_FINDINGS


def write_failed(args: argparse.Namespace, workload: str, failures: list[dict[str, Any]], out_dir: Path) -> Path:
    """Keep the evidence when the eager baseline itself failed: a results document with the failures."""
    date = _get(args, "date", _dt.date.today().isoformat())
    doc = {"schema_version": SCHEMA_VERSION, "kind": "inference", "date": date, "status": "failed",
           "env": environment({}), "workload": IW.WORKLOADS[workload].to_dict(), "variants": [],
           "failures": [portable_failure(f, out_dir) for f in failures], "notes": []}
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{_stem(args, workload, date)}.json"
    path.write_text(json.dumps(doc, indent=1, default=str) + "\n")
    return path


def run_inference_bench(args: argparse.Namespace) -> int:
    era = resolve_era(getattr(args, "mcore_version", None))
    scopes = parse_scopes(_get(args, "inference_scope", "none,layer,block"), era)
    check_rules(scopes, era)
    batch_sizes = parse_int_list(_get(args, "batch_sizes", "1,2,4,8"), "--batch-sizes")
    decode_tokens = int(_get(args, "decode_tokens", 64))
    trials = int(_get(args, "trials", 3))
    warmup = int(_get(args, "inference_warmup", 1))
    if decode_tokens < 2:
        raise InputError("--decode-tokens", f"{decode_tokens}: need at least 2 (prefill + 1 decode step)")
    if trials < 1:
        raise InputError("--trials", f"{trials}: need at least 1")
    workload = WORKLOAD_ALIASES.get(_get(args, "workload", "tiny-gpt"), _get(args, "workload", "tiny-gpt"))
    if workload not in WORKLOADS:
        raise InputError("--workload", f"{_get(args, 'workload', '')!r} has no inference workload",
                         hint="inference workloads: dense, moe, " + ", ".join(WORKLOADS))
    if _get(args, "size", "tiny") != "tiny":
        raise InputError("--size", f"{args.size!r}: inference mode has only the launch-bound tiny models",
                         hint="drop --size or use --size tiny with --mode inference")
    out_dir = Path(_get(args, "out", "benchmarks/results"))
    timeout_s = float(_get(args, "timeout_s", None) or _get(args, "timeout", 540))
    runs = list(scopes)
    if len(scopes) > 1 and not getattr(args, "no_same_shape_eager", False):
        runs.insert(1, SAME_SHAPE_EAGER)  # eager at the graphs' shapes, right after eager
    bi_runs = batch_invariant_runs(_get(args, "batch_invariant_scopes", ""), era)
    if getattr(args, "batch_invariant_only", False):
        if not bi_runs:
            raise InputError("--batch-invariant-only", "no --batch-invariant-scopes given", hint="e.g. block")
        runs = bi_runs  # a second pass beside an earlier run of the plain scopes
    else:
        runs += bi_runs
    baseline = runs[0]
    if getattr(args, "dry_run", False):
        plan = {"era": era.to_dict(), "scopes": scopes, "batch_sizes": batch_sizes,
                "same_shape_eager": SAME_SHAPE_EAGER in runs, "runs": runs,
                "decode_tokens": decode_tokens, "trials": trials, "workload": workload,
                "workload_spec": IW.WORKLOADS[workload].to_dict(),
                "unavailable_on_this_machine": IW.unavailable(IW.WORKLOADS[workload]),
                "variants": [scope_config(s).to_dict() for s in scopes]}
        if getattr(args, "json", False):
            emit("bench", plan, kind="inference-plan", indent=1)
            return EXIT_OK
        print(f"would run {', '.join(runs)} × batch {batch_sizes} ({decode_tokens} decode tokens, {trials} trials)"
              + (f"; {SAME_SHAPE_EAGER} = eager padded to the graph buckets, the parity control"
                 if SAME_SHAPE_EAGER in runs else ""))
        return EXIT_OK
    reasons = IW.unavailable(IW.WORKLOADS[workload])
    run_refused = bool(getattr(args, "run_refused", False))
    if reasons and run_refused:
        print("[bench inference] --run-refused: running despite: " + "; ".join(reasons), file=sys.stderr)
    elif reasons:  # the worker would refuse the same way; no GPU process is spent on it
        spec = IW.WORKLOADS[workload]
        return report_unavailable(args, {"unavailable": reasons, "env": {},
                                         "workload": {**spec.to_dict(), "about": spec.about}}, out_dir)
    require_gpu()

    work = out_dir / "logs"
    raw: dict[str, dict[str, Any]] = {}
    failures: list[dict[str, Any]] = []
    for scope in runs:
        out_json = work / f"inference-{workload}-{scope}.json"
        log_path = work / f"inference-{workload}-{scope}.log"
        argv = worker_args(scope, batch_sizes, decode_tokens, trials, warmup, workload, out_json)
        argv += ["--run-refused"] if run_refused else []
        status = run_variant(scope, argv, log_path, timeout_s)
        if status["ok"] and out_json.exists():
            data = json.loads(out_json.read_text())
            if data.get("unavailable"):  # the worker could not build this workload: no other run can
                print(f"[bench inference] {workload} cannot be built: " + "; ".join(data["unavailable"]),
                      file=sys.stderr)
                return report_unavailable(args, data, out_dir)
            data["capture"]["capture_s_from_log"] = capture_from_log(log_path)
            data["log_path"] = str(log_path)
            raw[scope] = data
        else:
            failures.append(status)
        print(f"[bench inference] {scope}: {'ok' if status['ok'] else status['error_class']} ({log_path})",
              file=sys.stderr)
    if baseline not in raw:
        raise_msg = failures[0] if failures else {"error_class": "no output", "evidence": ""}
        print(f"bench --mode inference: the eager baseline failed: {raise_msg['error_class']}: "
              f"{raise_msg.get('evidence')}", file=sys.stderr)
        write_failed(args, workload, failures, out_dir)
        return EXIT_FINDINGS
    date = _get(args, "date", _dt.date.today().isoformat())
    result = assemble(raw, failures, date)
    paths = write_outputs(result, out_dir, stem=getattr(args, "name", None))
    if getattr(args, "json", False):
        summary = {k: result[k] for k in ("kind", "date", "env", "all_graphed_tokens_match_eager",
                                          "all_graphed_tokens_match_same_shape_eager",
                                          "all_graphed_tokens_match_batch_invariant_eager", "speedup_falloff",
                                          "failures")}
        summary["variants"] = [{k: v.get(k) for k in ("name", "decode_step_ms", "tokens_per_s", "speedup_vs_eager",
                                                       "tokens_match_eager", "tokens_match_same_shape_eager",
                                                       "first_mismatch_same_shape", "graphs_count", "capture_s")}
                               for v in result["variants"]]
        summary["artifacts"] = paths
        emit("bench", summary, indent=1)
    else:
        print(render_markdown(result))
        print("wrote " + ", ".join(paths.values()))
    # Replay is correct when graphed tokens equal eager at the same padded shapes; without that
    # control, only equality with plain eager counts.
    parity = result["all_graphed_tokens_match_same_shape_eager"]
    ok = not failures and (result["all_graphed_tokens_match_eager"] if parity is None else parity)
    ok = ok and result["all_graphed_tokens_match_batch_invariant_eager"] is not False
    return EXIT_OK if ok else EXIT_FINDINGS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options only ``bench --mode inference`` reads (one parser: ``skill-tools bench``'s)."""
    g = parser.add_argument_group("inference (--mode inference)")
    g.add_argument("--batch-sizes", default="1,2,4,8", help="decode batch sizes (default: 1,2,4,8)")
    g.add_argument("--decode-tokens", type=int, default=64, help="tokens decoded per request (default: 64)")
    g.add_argument("--inference-scope", default="none,layer,block",
                   help="inference_cuda_graph_scope values to compare (default: none,layer,block)")
    g.add_argument("--no-same-shape-eager", action="store_true",
                   help="skip the eager control padded to the graphs' batch buckets (it separates replay errors "
                        "from shape-dependent bf16 rounding)")
    g.add_argument("--batch-invariant-scopes", default="",
                   help="also run eager and these graphed scopes under batch_invariant_mode (token parity at "
                        "natural shapes), e.g. block")
    g.add_argument("--batch-invariant-only", action="store_true",
                   help="run only the batch-invariant runs (a second pass beside the plain scopes)")
    g.add_argument("--run-refused", action="store_true",
                   help="run a workload this machine's checks refuse (e.g. one the installed megatron-core cannot "
                        "build), to observe and record how it fails")
    g.add_argument("--date", default=None, help="date stamped on the results (default: today)")
