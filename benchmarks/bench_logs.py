"""Log parsing speed: parse a 1,000,000-line training log with `skill_tools.logs.parse.parse_path`.

Budget: <= 5 s on a 2-core CPU machine. The log is generated into a temporary directory from
the Megatron-LM core_v0.19.0 format strings (tests/fixtures/logs/make_synthetic.py): iteration
lines with every field, memory reports, timer blocks, INFO/WARNING lines, CUDA-graph messages
and a tqdm bar with `\\r` redraws; the `--mix iterations` variant is the worst case (every line
an iteration line). Writes benchmarks/results/<date>-logs-parse.json.
Usage: python benchmarks/bench_logs.py [--lines 1000000] [--repeats 3] [--mix realistic|iterations]
       python benchmarks/bench_logs.py --cli [--mix iterations]   # whole CLI (`skill-tools logs`) in a
       subprocess on the plain and the gzip file: wall time and peak RSS; budgets 5 s plain, 8 s gzip,
       300 MB; plus one gzip holding a 1 GiB line (peak RSS against a one-line log); writes
       benchmarks/results/<date>-logs-cli-<mix>.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "fixtures" / "logs"))

from make_synthetic import T0, mlm_iteration, mlm_memory  # noqa: E402

from skill_tools.logs.parse import parse_path  # noqa: E402
from skill_tools.stats import summarize  # noqa: E402

BUDGET_S = 5.0

_TIMER_BLOCK = ["INFO:megatron.core.timers:(min, max) time across ranks (ms):"] + [
    f"    {(name + ' ').ljust(48, '.')}: ({a:.2f}, {a + 1.3:.2f})"
    for name, a in (("forward-backward", 812.4), ("all-grads-sync", 20.1), ("params-all-gather", 9.7),
                    ("optimizer-copy-to-main-grad", 1.2), ("optimizer-clip-main-grad", 3.3),
                    ("optimizer-inner-step", 11.0), ("optimizer", 17.6), ("batch-generator", 0.4))
]
_NOISE = [
    "INFO:megatron.core.distributed.param_and_grad_buffer:Number of buckets for gradient all-reduce / reduce-scatter: 1",
    "/usr/local/lib/python3.12/dist-packages/torch/autograd/graph.py:824: UserWarning: c10d::broadcast_: an autograd kernel was not registered",
    "WARNING:megatron.core.rerun_state_machine:Result validation enabled",
    "create cuda graphs | mem: alloc 17.2 gb, res 21.5 gb:  40%|####      | 19/48\rcreate cuda graphs | mem: alloc 17.3 gb, res 21.5 gb:  42%|####      | 20/48",
    "\x1b[32mINFO:megatron.core.transformer.cuda_graphs:Rank 0: 48 graphable layers.\x1b[0m",
]


def write_log(path: Path, n_lines: int, mix: str) -> int:
    """Write about ``n_lines`` lines; returns the exact count."""
    written = 0
    it = 0
    ts = T0
    with open(path, "w") as fh:
        while written < n_lines:
            it += 1
            ts += timedelta(milliseconds=900)
            block = [mlm_iteration(it, 10**7, 900.0 + (it % 17), 9.0 - (it % 100) / 100, ts=ts, tflops=431.5)]
            if mix == "realistic":
                block += [mlm_memory(r, it, 20000.0, 41000.0, 44000.0) for r in (0, 1)]
                block += _TIMER_BLOCK if it % 2 == 0 else _NOISE
            block = block[: n_lines - written]
            fh.write("\n".join(block) + "\n")
            written += len(block)
    return written


CLI_BUDGET_S = {"plain": 5.0, "gzip": 8.0}
CLI_BUDGET_RSS_MB = 300.0


def _cli_once(path: Path) -> tuple[float, float, int, float, float]:
    """(wall seconds, peak RSS MB, exit code, CPU seconds (user+sys), 1-min load before) of
    `python -m skill_tools logs PATH` in a child. CPU time is what the machine's other users
    cannot inflate much; wall time is what a user waits."""
    import resource
    import subprocess

    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "skill_tools", "logs", str(path)], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    peak = after.ru_maxrss  # KiB, max over children so far
    if proc.returncode not in (0, 1):
        raise SystemExit(f"skill-tools logs failed ({proc.returncode}): {proc.stderr[-500:]}")
    return wall, max(peak, before.ru_maxrss) / 1024.0, proc.returncode, cpu, load


def cli_main(args: argparse.Namespace) -> int:
    import gzip
    import shutil

    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "bench.log"
        n = write_log(log, args.lines, args.mix)
        gz = Path(tmp) / "bench.log.gz"
        with open(log, "rb") as src, gzip.open(gz, "wb", compresslevel=6) as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        runs: dict[str, dict] = {}
        for name, path in (("plain", log), ("gzip", gz)):
            walls, rss, cpus, loads = [], [], [], []
            for _ in range(args.repeats):
                w, r, _, c, ld = _cli_once(path)
                walls.append(round(w, 3))
                rss.append(round(r, 1))
                cpus.append(round(c, 3))
                loads.append(round(ld, 2))
            runs[name] = {"bytes": path.stat().st_size, "seconds": walls, "max_s": max(walls),
                          "median_s": sorted(walls)[len(walls) // 2], "cpu_seconds": cpus,
                          "load_1min_before": loads, "peak_rss_mb": max(rss),
                          "budget_s": CLI_BUDGET_S[name],
                          "within_budget": min(walls) <= CLI_BUDGET_S[name] and max(rss) <= CLI_BUDGET_RSS_MB,
                          "within_budget_cpu": min(cpus) <= CLI_BUDGET_S[name] and max(rss) <= CLI_BUDGET_RSS_MB}
        long_line = _long_line_run(Path(tmp), args.long_line_mib) if args.long_line_mib else None
    result = {
        "benchmark": "logs-cli", "date": dt.date.today().isoformat(), "lines": n, "mix": args.mix,
        "repeats": args.repeats, "budget_rss_mb": CLI_BUDGET_RSS_MB, "runs": runs, "long_line": long_line,
        "note": "RSS is the child's peak (ru_maxrss, a high-water mark over the repeats); cpu_seconds is the "
                "child's user+sys time; the machine is shared (load_1min_before: its 1-minute load average when "
                "each run started), so wall times vary with load: the budget checks use the fastest repeat",
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()},
    }
    out = Path(args.out) if args.out else REPO / "benchmarks" / "results" / f"{result['date']}-logs-cli-{args.mix}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    for name, r in runs.items():
        print(f"{name}: {n:,} lines, wall {r['seconds']} s, cpu {r['cpu_seconds']} s, load {r['load_1min_before']}, "
              f"peak RSS {r['peak_rss_mb']} MB (budget {r['budget_s']:.0f} s, {CLI_BUDGET_RSS_MB:.0f} MB) -> "
              f"{'OK' if r['within_budget'] else 'OVER'} (cpu {'OK' if r['within_budget_cpu'] else 'OVER'})")
    if long_line:
        print(f"one {args.long_line_mib} MiB line ({long_line['gzip_bytes']:,} bytes gzip): peak RSS "
              f"{long_line['peak_rss_mb']} MB vs {long_line['baseline_rss_mb']} MB on a one-line log "
              f"(+{long_line['extra_rss_mb']} MB), wall {long_line['seconds']} s")
    print(f"wrote {out}")
    return 0 if all(r["within_budget"] for r in runs.values()) else 1


def _long_line_run(tmp: Path, mib: int) -> dict:
    """A small gzip that inflates to one `mib`-MiB line: the CLI must keep it to a capped head and
    tail (reader.py MAX_LINE_CHARS), so its peak RSS stays near that of a one-line log. Each
    measurement runs under a fresh intermediate process (ru_maxrss of RUSAGE_CHILDREN is a running
    maximum over every child this process ever had)."""
    import gzip

    small = tmp / "one-line.log"
    small.write_text(_ONE_LINE + "\n")
    big = tmp / "long-line.log.gz"
    with gzip.open(big, "wb", compresslevel=9) as fh:
        block = b"x" * (1 << 20)
        for _ in range(mib):
            fh.write(block)
        fh.write(b"\n" + _ONE_LINE.encode() + b"\n")
    base_rss, _ = _fresh_rss(small)
    rss, wall = _fresh_rss(big)
    return {"line_mib": mib, "gzip_bytes": big.stat().st_size, "seconds": round(wall, 3),
            "baseline_rss_mb": round(base_rss, 1), "peak_rss_mb": round(rss, 1),
            "extra_rss_mb": round(rss - base_rss, 1)}


_MEASURE = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "subprocess.run([sys.executable, '-m', 'skill_tools', 'logs', sys.argv[1]], stdout=subprocess.DEVNULL)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, time.perf_counter() - t)\n"
)


def _fresh_rss(path: Path) -> tuple[float, float]:
    """(peak RSS MB, wall s) of one `skill_tools logs PATH` run, measured by a fresh parent."""
    import subprocess

    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", _MEASURE, str(path)], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    return int(out[0]) / 1024.0, float(out[1])


_ONE_LINE = (" [2026-07-28 10:00:00.900000] iteration        1/      10 | consumed samples:          128 | "
             "elapsed time per iteration (ms): 901.0 | lm loss: 8.990000E+00 | number of nan iterations:   0 |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--mix", choices=("realistic", "iterations"), default="realistic")
    ap.add_argument("--out", default=None)
    ap.add_argument("--cli", action="store_true", help="time the whole CLI on plain and gzip files")
    ap.add_argument("--long-line-mib", type=int, default=1024,
                    help="with --cli: also read a gzip holding one line this long (MiB; 0 to skip)")
    args = ap.parse_args()
    if args.cli:
        return cli_main(args)
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "bench.log"
        n = write_log(log, args.lines, args.mix)
        size = log.stat().st_size
        times = []
        summary = None
        for _ in range(args.repeats):
            parsed = None  # free the previous result first: each repeat starts from the same memory state
            start = time.perf_counter()
            parsed = parse_path(log)
            times.append(time.perf_counter() - start)
            summary = {"format": parsed.format, "iterations": len(parsed.iterations), "memory_reports": len(parsed.memory),
                       "timers": len(parsed.timers), "events": len(parsed.events), "failures": len(parsed.failures)}
    stats = summarize(times)
    result = {
        "benchmark": "logs-parse",
        "date": dt.date.today().isoformat(),
        "lines": n, "bytes": size, "mix": args.mix, "repeats": args.repeats, "budget_s": BUDGET_S,
        "seconds": [round(t, 3) for t in times],
        "summary": stats.to_dict(),
        "max_s": round(max(times), 3),
        "lines_per_s": round(n / stats.median),
        "within_budget": max(times) <= BUDGET_S,
        "parsed": summary,
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()},
    }
    out = Path(args.out) if args.out else REPO / "benchmarks" / "results" / f"{result['date']}-logs-parse.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"parsed {n:,} lines ({size / 1e6:.0f} MB, mix {args.mix}): median {stats.median:.2f}s, max {max(times):.2f}s "
          f"(budget {BUDGET_S:.0f}s) -> {'OK' if result['within_budget'] else 'TOO SLOW'}; wrote {out}")
    return 0 if result["within_budget"] else 1


if __name__ == "__main__":
    sys.exit(main())
