"""`skill-tools logs A.log [B.log] [--json]`: parse, compare and diagnose training logs.

One log  -> summary: format, iterations, capture, steady state, memory, failures.
Two logs -> both summaries plus an eager-vs-graph comparison (A = eager, B = graph; swapped
            automatically, and said so, when only A shows a capture).

Exit status: 0 = read, nothing diagnosed (also plain text with nothing to read); 1 = at least one
finding (in either log, or `no-speedup` from the comparison); 2 = refused input (missing, empty,
binary, corrupt gzip, or not a log: a YAML config, a notebook or other JSON, Python source).

JSON (``--json``, schema skill_tools/schemas/logs.schema.json, ``schema_version`` 1) is bounded
whatever the log's length: summary, statistics (steady state, timers, memory), capture evidence and
findings. Per-iteration rows are written only with ``--iterations FILE`` (JSON Lines, streamed;
``-`` = stdout, then the summary goes to stderr).
One log: {"schema_version", "kind": "log", "source", "format", "format_reason", "stack", "lines",
"iteration_count", "iterations": null, "iterations_file", "steady_state", "capture", "memory",
"timers", "events", "failures": [{"id", "line_no", "evidence", "cause", "fix", "rule", ...}],
"verdict", "warnings", "comparison": null}.
Two logs: {"schema_version", "kind": "comparison", "logs": {"eager": <one log>, "graph": <one log>},
"comparison": {"verdict", "reason", "speedup", ...}, "failures": [every finding, each with "log"]}.
Refused input under --json: {"schema_version", "kind": "error", "error": {"input", "message", "hint"}}.
"""

from __future__ import annotations

import argparse
import json
import sys
from statistics import median
from typing import Any

from skill_tools.errors import EXIT_FINDINGS, EXIT_OK

SCHEMA_VERSION = 1
_MAX_RANKS = 256
_MAX_WARNINGS = 50


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("logs", nargs="+", metavar="LOG", help="training log(s), plain or .gz; two = eager then graph")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--warmup", type=int, default=None, metavar="N",
                        help="also exclude iterations <= N from steady state (default: through the capture "
                             "iteration for graph runs, 3 for eager runs)")
    parser.add_argument("--band", type=float, default=0.02,
                        help="speedup below this fraction counts as neutral (default 0.02)")
    parser.add_argument("--iterations", metavar="FILE", default=None,
                        help="also write every per-iteration row as JSON Lines to FILE ('-' = stdout), streamed; "
                             "--json alone is bounded and carries no rows")
    parser.add_argument("--no-iterations", action="store_true",
                        help="accepted for compatibility: rows are left out of --json unless --iterations is given")
    parser.epilog = "exit status: 0 ok, 1 findings, 2 refused input (unreadable, or not a log)"


def _timers(timers: dict[str, list[float]]) -> dict[str, Any]:
    return {k: {"count": len(v), "median_max_ms": round(median(v), 2), "last_max_ms": v[-1]}
            for k, v in timers.items()}


def summarize_log(log, *, warmup: int | None, steady=None, iterations_file: str | None = None) -> dict[str, Any]:
    """The bounded summary of one log. ``steady``: the log's SteadyState when already computed (by the
    comparison); ``iterations_file``: where the rows were streamed, if anywhere."""
    from skill_tools.logs.steady import detect_capture, memory_summary, steady_state
    from skill_tools.logs.verdict import build

    if steady is None:
        steady = steady_state(log, warmup=warmup)
    capture = detect_capture(log, steady.median_ms)
    verdict = build(log)
    cap = capture.to_dict()
    cap.update(status=verdict.capture_status, summary=verdict.capture_summary,
               evidence=[e.to_dict() for e in log.evidence.strongest(20)])
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": "log",
        "source": log.source,
        "format": log.format,
        "format_reason": log.format_reason,
        "stack": verdict.stack,
        "lines": log.lines,
        "ranks": log.ranks[:_MAX_RANKS],
        "rank_count": len(log.ranks),
        "iterations": None,
        "iterations_file": iterations_file,
        "iteration_count": len(log.iterations),
        "steady_state": steady.to_dict(),
        "capture": cap,
        "memory": memory_summary(log),
        "timers": _timers(log.timers),
        "events": [e.to_dict() for e in log.events if e.kind != "capture_progress"][:200],
        "failures": [dict(f.to_dict(), log=log.source) for f in verdict.failures],
        "verdict": verdict.to_dict(),
        "run": log.runinfo.to_dict(),
        "warnings": log.warnings[:_MAX_WARNINGS],
        "comparison": None,
    }


def _stream_rows(logs, target: str | None) -> None:
    """Write every per-iteration row as one JSON line (streamed: no list is built)."""
    if target is None:
        return
    fh = sys.stdout if target == "-" else open(target, "w", encoding="utf-8")
    try:
        for log in logs:
            for it in log.iterations:
                row = it.to_dict()
                row["log"] = log.source
                fh.write(json.dumps(row) + "\n")
    finally:
        if fh is not sys.stdout:
            fh.close()


def _fmt_ms(v: float | None) -> str:
    return "-" if v is None else f"{v:,.1f} ms"


def _print_summary(s: dict[str, Any], title: str = "") -> None:
    head = f"{title}{s['source']}: {s['format']} ({s['iteration_count']} iteration lines, {s['lines']} lines)"
    print(head)
    v = s["verdict"]
    stack = v["stack"]
    print(f"  stack: {stack['description']}" + (f" (also: {', '.join(stack['other_packages'])})"
                                                 if stack.get("other_packages") else ""))
    cap = s["capture"]
    if cap["detected"]:
        secs = "" if cap["seconds"] is None else f", {cap['seconds']:.2f} s ({cap['seconds_source']})"
        when = "" if cap["iteration"] is None else f" in iteration {cap['iteration']}"
        print(f"  capture: {cap['impl']} graph capture seen{when}{secs}")
        if cap["status"] == "capture-failed":
            print(f"  capture: {cap['summary']} (also)")
    elif not cap["inference_captures"]:
        print(f"  capture: {cap['summary']}")
    # The strongest evidence first; "disabled" lines (e.g. a legacy enable_cuda_graph=False in the
    # argument dump) only when nothing stronger was seen, so a run that captured does not lead with them.
    strength = ("capture-failed", "replayed", "captured", "capture-started", "disabled")
    kinds = strength if cap["status"] in ("disabled", "unknown", "mentioned") else strength[:-1]
    shown = sorted((e for e in cap.get("evidence", []) if e["kind"] in kinds),
                   key=lambda e: strength.index(e["kind"]))[:3]
    for e in shown:
        print(f"    line {e['line_no']} ({e['kind']}): {e['text'][:160]}")
    if v["hang"] != "unknown" or v["nan"] not in ("no", "unknown"):
        print(f"  hang: {v['hang']}; NaN/Inf: {v['nan']}")
    for note in v["notes"]:
        print(f"  note: {note}")
    if cap["inference_captures"]:
        n = f"{cap['inference_graphs']} " if cap["inference_graphs"] else ""
        print(f"  inference: {n}cuda graph(s) built {cap['inference_captures']} time(s), last in {cap['inference_seconds']} s")
    if cap["graphable_layers"]:
        print("  graphable layers per rank: " + ", ".join(f"rank {r}: {n}" for r, n in cap["graphable_layers"].items()))
    if cap["graph_memory_mib"]:
        print("  graph memory: " + ", ".join(f"{k} {v:,.1f} MiB" for k, v in cap["graph_memory_mib"].items()))
    for note in cap["notes"]:
        print(f"  note: {note}")
    st = s["steady_state"]
    if st["median_ms"] is None:
        print(f"  steady state: {st['reason']}")
    else:
        ci = st["ci95_ms"]
        print(f"  steady state: median {_fmt_ms(st['median_ms'])} (95% CI {ci[0]:,.1f}-{ci[1]:,.1f}), "
              f"p10 {_fmt_ms(st['p10_ms'])}, p90 {_fmt_ms(st['p90_ms'])}; {st['reason']}")
        extra = [f"{k.replace('_', ' ')} {st[k]:,.1f}" for k in ("tflops_per_gpu", "model_tflops_per_gpu", "samples_per_s")
                 if st[k] is not None]
        if extra:
            print("                " + ", ".join(extra))
        if st["excluded"]:
            print("  excluded: " + ", ".join(f"{n} {k}" for k, n in st["excluded"].items()))
    mem = s["memory"]
    if mem.get("reports"):
        print(f"  memory: peak max allocated {mem['peak_max_allocated_mib']} MiB, peak max reserved "
              f"{mem['peak_max_reserved_mib']} MiB over {mem['reports']} reports")
    for w in s["warnings"]:
        print(f"  warning: {w}")
    for f in s["failures"]:
        _print_failure(f)


def _print_failure(f: dict[str, Any]) -> None:
    where = f"line {f['line_no']}" if f["line_no"] is not None else "comparison"
    rule = f" [validator rule {f['rule']}]" if f.get("rule") else ""
    more = f" (x{f['count']}, ranks {f['ranks']})" if f.get("count", 1) > 1 and f.get("ranks") else ""
    quoted = " (quoted in prose, not printed by a run)" if f.get("quoted") else ""
    print(f"  {f['severity'].upper()} {f['id']}{rule}{quoted} at {where}{more}")
    print(f"    | {f['evidence']}")
    print(f"    cause: {f['cause']}")
    print(f"    fix:   {f['fix']}")


def _refuse_config(path: str, log) -> None:
    """A config file given as a log (``logs good.yaml``) is said to be one: its graph keys match
    framework-line patterns, yet it holds no iteration and no failure."""
    from skill_tools.errors import InputError

    if log.iterations or _failures(log):
        return
    from skill_tools.config.readers import read_path

    try:
        cfg = read_path(path)
    except InputError:
        return
    # "per token latency baseline: ~95ms" parses as YAML too: a config has identifier keys, not phrases
    if cfg.fmt in ("yaml", "json", "python") and any(" " not in str(k) for k in cfg.values):
        raise InputError(path, f"this is a config file ({cfg.fmt}), not a training log",
                         hint=f"check it with: skill-tools validate {path}")


def _failures(log) -> list:
    from skill_tools.logs.verdict import build

    return build(log).failures


def run(args: argparse.Namespace) -> int:
    """Errors (InputError) reach the CLI, which prints them as every command does: one line on
    stderr and, under --json, the error document of ``schemas/error.schema.json`` on stdout."""
    return _run(args)


def _emit(doc: dict[str, Any], args: argparse.Namespace) -> None:
    # with the rows on stdout, the summary goes to stderr so each stream stays one format
    print(json.dumps(doc, indent=2), file=sys.stderr if args.iterations == "-" else sys.stdout)


def _run(args: argparse.Namespace) -> int:
    from skill_tools.errors import InputError
    from skill_tools.logs.compare import compare
    from skill_tools.logs.parse import parse_path

    if len(args.logs) > 2:
        raise InputError(" ".join(args.logs), "give one log (summary) or two logs (eager then graph)")
    parsed = [parse_path(p) for p in args.logs]
    for path, log in zip(args.logs, parsed):
        _refuse_config(path, log)
    _stream_rows(parsed, args.iterations)
    rows_at = args.iterations if args.iterations not in (None, "-") else ("<stdout>" if args.iterations else None)
    if len(parsed) == 1:
        out = summarize_log(parsed[0], warmup=args.warmup, iterations_file=rows_at)
        if args.json:
            _emit(out, args)
        else:
            _print_summary(out)
        return EXIT_FINDINGS if out["failures"] else EXIT_OK

    cmp = compare(parsed[0], parsed[1], band=args.band, warmup=args.warmup)
    # The comparison already computed both steady states (bootstrap CIs): reuse them.
    steadies = (cmp.graph_steady, cmp.eager_steady) if cmp.swapped else (cmp.eager_steady, cmp.graph_steady)
    summaries = [summarize_log(p, warmup=args.warmup, steady=st, iterations_file=rows_at)
                 for p, st in zip(parsed, steadies)]
    failures = [f for s in summaries for f in s["failures"]]
    eager, graph = (summaries[1], summaries[0]) if cmp.swapped else (summaries[0], summaries[1])
    cmp_d = cmp.to_dict()
    failures += cmp_d["failures"]
    if args.json:
        _emit({"schema_version": SCHEMA_VERSION, "kind": "comparison", "logs": {"eager": eager, "graph": graph},
               "comparison": cmp_d, "failures": failures}, args)
    else:
        _print_summary(eager, "eager: ")
        print()
        _print_summary(graph, "graph: ")
        print()
        _print_comparison(cmp, cmp_d)
    return EXIT_FINDINGS if failures else EXIT_OK


def _print_comparison(cmp, cmp_d: dict[str, Any]) -> None:
    if cmp.swapped:
        print("note: inputs swapped: the first log shows a capture, the second does not")
    print(f"verdict: {cmp.verdict.upper()}: {cmp.reason}")
    loss = cmp.loss
    if loss.get("keys"):
        parts = [f"{k} max |delta| {d['max_abs_delta']:.4g} (rel {d['max_rel_delta']:.2%}, it {d['at_iteration']})"
                 for k, d in loss["keys"].items()]
        ok = {True: "within", False: "OUTSIDE", None: "n/a"}[loss["within_tolerance"]]
        print(f"loss over {loss['overlapping_iterations']} overlapping iterations ({ok} {loss['rtol']:.0%}): "
              + "; ".join(parts))
    mem = cmp.memory
    if "delta_max_reserved_mib" in mem:
        print(f"memory: max reserved {mem['delta_max_reserved_mib']:+,.1f} MiB ({mem['delta_pct_max_reserved_mib']:+.1f}%), "
              f"max allocated {mem.get('delta_max_allocated_mib', 0):+,.1f} MiB")
    for f in cmp_d["failures"]:
        _print_failure(f)
