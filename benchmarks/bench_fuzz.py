"""A longer fuzz run of the helpers than the test suite's, with counts.

Same generators and the same per-input ceilings as tests/core/test_fuzz_inputs.py (real vocabulary
from the rule catalog, flag tables, examples and log fixtures, then broken), many more inputs:

    python benchmarks/bench_fuzz.py [--examples 400] [--out benchmarks/results/DATE-fuzz.json]

Reports per target: inputs run, exit status counts, distinct crashes (an exception, a traceback,
an exit code other than 0/1/2, a ceiling passed) with one input each, the slowest input and the
largest raise of the process's resident memory by one input. Exit 1 when anything crashed.
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import fuzz_inputs as F  # noqa: E402

CONFIG_COMMANDS = [["validate"], ["validate", "--json"], ["recommend", "--json"],
                   ["apply", "--impl", "full_iteration"], ["apply", "--impl", "transformer_engine", "--scope", "attn,mlp"],
                   ["apply", "--impl", "local", "--mcore-version", "0.16.1", "--json"], ["validate", "--mcore-version", "0.16.1"]]


def _targets(scratch: Path):
    evals = str(REPO / "evals" / "evals.json")

    def write(text: str, name: str) -> str:
        path = scratch / name
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        return str(path)

    return {
        "configs-generated": (st.tuples(F.config_texts(), st.sampled_from(CONFIG_COMMANDS)),
                              lambda c: [c[1][0], write(c[0][0], "in" + c[0][1]), *c[1][1:]]),
        "configs-mutated": (st.tuples(F.mutated_files(F.EXAMPLES), st.sampled_from(CONFIG_COMMANDS)),
                            lambda c: [c[1][0], write(c[0][0], "in" + c[0][1]), *c[1][1:]]),
        "logs": (st.one_of(F.log_texts(), F.mutated_files(F.LOGS).map(lambda c: c[0])),
                 lambda t: ["logs", write(t, "in.log"), "--json"]),
        "logs-compare": (st.tuples(F.log_texts(), F.log_texts()),
                         lambda c: ["logs", write(c[0], "a.log"), write(c[1], "b.log")]),
        "evals-score": (F.answer_lines(), lambda t: ["evals", "score", "--answers", write(t, "a.jsonl"), "--evals", evals]),
    }


def _shown(argv: list[str]) -> list[str]:
    """argv as recorded: scratch files by name only (their folder is this machine's)."""
    return [Path(a).name if Path(a).is_absolute() else a for a in argv]


def run_target(name: str, strategy, to_argv, examples: int, seed: int) -> dict:
    counts: collections.Counter = collections.Counter()
    crashes: dict[str, dict] = {}
    slowest = {"seconds": 0.0}
    peak = {"mib": 0.0}
    start = time.monotonic()

    @settings(max_examples=examples, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def one(case):
        argv = to_argv(case)
        try:
            o = F.run_cli(argv)
        except F.Crash as exc:
            key = str(exc).split(":")[0:2]
            key = ":".join(key)[:120]
            counts["crash"] += 1
            if key not in crashes:
                crashes[key] = {"message": str(exc)[:400].replace(str(argv[1]), Path(argv[1]).name)
                                if len(argv) > 1 else str(exc)[:400], "argv": _shown(argv),
                                "input_head": Path(argv[1]).read_text(errors="replace")[:300]
                                if len(argv) > 1 and Path(argv[1]).is_file() else None}
            return
        counts[f"exit_{o.rc}"] += 1
        if o.seconds > slowest["seconds"]:
            slowest.update(seconds=round(o.seconds, 3), argv=_shown(argv))
        peak["mib"] = max(peak["mib"], round(o.peak_mib, 1))

    one._hypothesis_internal_use_seed = seed  # reproducible: same inputs for the same seed
    one()
    return {"target": name, "inputs": sum(counts.values()), "counts": dict(sorted(counts.items())),
            "distinct_crashes": len(crashes), "crashes": list(crashes.values()),
            "slowest_input": slowest, "max_rss_raise_mib": peak["mib"],
            "wall_s": round(time.monotonic() - start, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--examples", type=int, default=400, help="inputs per target (default 400)")
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--only", help="comma-separated targets")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="skill-tools-bench-fuzz-"))
    targets = _targets(scratch)
    names = args.only.split(",") if args.only else list(targets)
    rows = []
    for name in names:
        strategy, to_argv = targets[name]
        row = run_target(name, strategy, to_argv, args.examples, args.seed)
        rows.append(row)
        print(f"{name:18s} {row['inputs']:6d} inputs  {row['counts']}  crashes {row['distinct_crashes']}  "
              f"slowest {row['slowest_input']['seconds']:.2f} s  peak {row['max_rss_raise_mib']:.0f} MiB  "
              f"({row['wall_s']:.0f} s)", flush=True)
    total = sum(r["inputs"] for r in rows)
    crashed = sum(r["distinct_crashes"] for r in rows)
    result = {"benchmark": "fuzz", "date": dt.date.today().isoformat(), "seed": args.seed,
              "examples_per_target": args.examples, "ceilings": {"seconds": F.MAX_SECONDS, "rss_raise_per_input_mib": F.MAX_MIB},
              "inputs": total, "distinct_crashes": crashed, "targets": rows,
              "machine": {"python": sys.version.split()[0]}}
    out = args.out or REPO / "benchmarks" / "results" / f"{result['date']}-fuzz.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"{total} inputs, {crashed} distinct crashes -> {out.relative_to(REPO) if out.is_relative_to(REPO) else out}")
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main())
