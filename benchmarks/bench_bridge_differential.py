"""Catalog vs Megatron Bridge's own ConfigContainer.validate() + GPTModelProvider graph asserts, on
generated Bridge-shaped configs (needs megatron-bridge importable: see benchmarks/README.md):

    PYTHONPATH=. python benchmarks/bench_bridge_differential.py [--count 1000]

Writes benchmarks/results/<date>-bridge-differential-<era>-<mcore>-bridge-<bridge>.json with the
versions it ran against (Transformer Engine's too: Bridge imports it when its package loads, and
megatron-core's TE-dependent checks follow what is installed). Exit 1 on any disagreement, 2 when
Bridge cannot be imported (its one-line reason is printed).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import pathlib
import platform
import sys
import time
import warnings


def _te_version() -> str | None:
    try:
        import transformer_engine

        return str(getattr(transformer_engine, "__version__", None))
    except Exception as exc:  # noqa: BLE001
        return f"not importable: {type(exc).__name__}"


def main() -> int:
    from skill_tools.config.era import era_for, installed_version
    from skill_tools.rules import bridge_oracle
    from skill_tools.rules.bridge_differential import run

    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=20261203)
    ap.add_argument("--note", help="how this environment got megatron-bridge importable (recorded with the result)")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    ok, reason = bridge_oracle.availability()
    if not ok:
        print(f"Bridge oracle skipped: {reason}", file=sys.stderr)
        return 2
    era = era_for(installed_version("megatron-core"))
    t0 = time.perf_counter()
    res = run(era, args.count, seed=args.seed)
    data = {**res.to_dict(), "oracle_errors": res.bridge_errors, "seed": args.seed,
            "seconds": round(time.perf_counter() - t0, 2), "date": dt.date.today().isoformat(),
            "note": args.note,
            "oracle": "megatron-bridge runtime_config_update()/ConfigContainer.validate() + GPTModelProvider.provide() "
                      "graph asserts (skill_tools/rules/bridge_oracle.py)",
            "versions": {"megatron_bridge": installed_version("megatron-bridge"),
                         "megatron_core": installed_version("megatron-core"), "torch": installed_version("torch"),
                         "transformer_engine": _te_version(), "python": platform.python_version()}}
    out = (pathlib.Path(__file__).parent / "results"
           / f"{data['date']}-bridge-differential-{era.name}-{era.mcore_version}-bridge-{res.bridge_version}.json")
    out.write_text(json.dumps(data, indent=2) + "\n")
    print(json.dumps({k: data[k] for k in ("era", "mcore_version", "bridge_version", "count", "bridge_errors",
                                           "disagreements", "seconds")}))
    return 0 if not res.disagreements else 1


if __name__ == "__main__":
    raise SystemExit(main())
