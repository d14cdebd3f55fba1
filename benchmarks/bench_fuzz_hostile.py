"""Hostile inputs for every command, many of them, with counts (the long run of
tests/core/test_fuzz_hostile.py):

    python benchmarks/bench_fuzz_hostile.py [--examples 20000] [--only validate,logs] [--jobs 2]

Per command: inputs run, exit status counts, distinct crash signatures (an exception, a
traceback, a Python warning on stderr, exit other than 0/1/2, an error of more than one line,
no JSON error under --json, a file changed or created outside the output) with one input each,
inputs over 10 s, inputs raising resident memory by over 1 GiB, the slowest input. The inputs
mix every generator of tests/fuzz_hostile.py and tests/fuzz_inputs.py that fits the command,
plus the special paths. Exit 1 when anything crashed or passed a ceiling.
"""

from __future__ import annotations

import argparse
import collections
import json
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import fuzz_hostile as H  # noqa: E402
import fuzz_inputs as F  # noqa: E402

SLOW_S = 10.0
BIG_MIB = 1024.0
RESULTS = sorted((REPO / "benchmarks" / "results").glob("*.json"))


def _encoded(strategy):
    return strategy.map(lambda c: (c[0].encode("utf-8", "surrogatepass"), c[1]) if isinstance(c[0], str) else c)


def _inputs(command: str):
    """(bytes, suffix) inputs for ``command``, or ('special', kind)."""
    configs = st.one_of(H.yaml_tag_texts(), H.python_literal_texts(), H.float_limit_texts(), H.hydra_override_texts(),
                        F.config_texts(), F.mutated_files(F.EXAMPLES))
    logs = st.one_of(H.log_float_limits().map(lambda t: (t, ".log")), F.log_texts().map(lambda t: (t, ".log")),
                     F.mutated_files(F.LOGS))
    results = F.mutated_files(RESULTS) if RESULTS else configs
    answers = F.answer_lines().map(lambda t: (t, ".jsonl"))
    own = {"logs": logs, "precheck": results, "bench": results, "evals": answers}.get(command, configs)
    special = st.sampled_from(H.SPECIAL).map(lambda k: ("special", k))
    return st.one_of(_encoded(own), _encoded(own), _encoded(own), H.encoded_files(), special)


def run_command(command: str, examples: int, seed: int, budget_s: float = float("inf"),
                keep: Path | None = None) -> dict:
    scratch = Path(tempfile.mkdtemp(prefix=f"skill-tools-hostile-{command}-"))
    counts: collections.Counter = collections.Counter()
    crashes: dict[str, dict] = {}
    slow: list[dict] = []
    big: list[dict] = []
    slowest = {"seconds": 0.0}
    start = time.monotonic()

    def one(case):
        folder = scratch / "case"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        if case[0] == "special":
            path, shown = H.special_path(case[1], folder), f"<special:{case[1]}>"
        else:
            data, suffix = case
            path = str(folder / f"input{suffix}")
            Path(path).write_bytes(data)
            shown = data[:300].decode("utf-8", "replace")
        argv = H.command_lines(path, folder)[command]
        try:
            o = H.check_contract(argv, folder)
        except F.Crash as exc:
            counts["crash"] += 1
            key = _signature(str(exc), path)
            if key not in crashes:
                crashes[key] = {"message": str(exc)[:400].replace(str(folder), "<scratch>"), "input_head": shown}
                if keep is not None and case[0] != "special":  # the whole input, to reproduce it by hand
                    keep.mkdir(parents=True, exist_ok=True)
                    (keep / f"{command}-{len(crashes)}{case[1]}").write_bytes(case[0])
            return
        counts[f"exit_{o.rc}"] += 1
        if o.seconds > slowest["seconds"]:
            slowest.update(seconds=round(o.seconds, 3), input_head=shown[:120])
        if o.seconds > SLOW_S:
            slow.append({"seconds": round(o.seconds, 1), "input_head": shown[:120]})
        if o.peak_mib > BIG_MIB:
            big.append({"mib": round(o.peak_mib), "input_head": shown[:120]})

    strategy, batch = _inputs(command), 0
    while sum(counts.values()) < examples and time.monotonic() - start < budget_s:  # batches: stop on time
        run = settings(max_examples=min(500, examples - sum(counts.values())), deadline=None, database=None,
                       phases=[Phase.generate], suppress_health_check=list(HealthCheck))(given(strategy)(one))
        run._hypothesis_internal_use_seed = seed * 1000 + batch  # reproducible: batch k of a seed is fixed
        run()
        batch += 1
    shutil.rmtree(scratch, ignore_errors=True)
    argv = [a.replace(str(REPO) + "/", "") for a in H.command_lines("INPUT", Path("SCRATCH"))[command]]
    return {"command": command, "argv": argv,  # repository paths relative: results name no machine
            "inputs": sum(counts.values()), "counts": dict(sorted(counts.items())),
            "crash_signatures": len(crashes), "crashes": list(crashes.values()),
            "over_10_s": slow, "over_1_gib": big, "slowest_input": slowest,
            "wall_s": round(time.monotonic() - start, 1)}


def _signature(message: str, path: str) -> str:
    """A crash's kind without its input: the exception type and the first words of its message."""
    text = message.replace(path, "<input>")
    return " ".join(text.split()[:6])[:120]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--examples", type=int, default=20000, help="inputs per command (default 20000)")
    ap.add_argument("--seed", type=int, default=30)
    ap.add_argument("--only", help="comma-separated commands")
    ap.add_argument("--jobs", type=int, default=2, help="commands run at once (processes)")
    ap.add_argument("--budget-s", type=float, default=float("inf"), help="stop each command after this many seconds")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--keep-crashes", type=Path, help="write the whole input of each crash signature into this folder")
    args = ap.parse_args(argv)
    names = args.only.split(",") if args.only else list(H.command_lines("x", Path(".")))
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        rows = list(pool.map(run_command, names, [args.examples] * len(names), [args.seed] * len(names),
                             [args.budget_s] * len(names), [args.keep_crashes] * len(names)))
    for row in rows:
        print(f"{row['command']:15s} {row['inputs']:6d} inputs  {row['counts']}  signatures {row['crash_signatures']}  "
              f"over 10 s {len(row['over_10_s'])}  over 1 GiB {len(row['over_1_gib'])}  "
              f"slowest {row['slowest_input']['seconds']:.2f} s  ({row['wall_s']:.0f} s)", flush=True)
    bad = sum(r["crash_signatures"] + len(r["over_10_s"]) + len(r["over_1_gib"]) for r in rows)
    result = {"benchmark": "fuzz-hostile", "seed": args.seed, "examples_per_command": args.examples,
              "budget_s_per_command": None if args.budget_s == float("inf") else args.budget_s,
              "ceilings": {"seconds": SLOW_S, "rss_raise_mib": BIG_MIB}, "inputs": sum(r["inputs"] for r in rows),
              "crash_signatures": sum(r["crash_signatures"] for r in rows), "commands": rows,
              "machine": {"python": sys.version.split()[0], "jobs": args.jobs}}
    out = args.out or REPO / "benchmarks" / "results" / "fuzz-hostile.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"{result['inputs']} inputs, {result['crash_signatures']} crash signatures, {bad} problems -> {out}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
