"""`skill-tools precheck`: profile eager steps, report the host-gap fraction, predict whether
CUDA graphs pay off, and check the prediction against a measured eager-vs-graph A/B."""

from __future__ import annotations

import argparse
from pathlib import Path

from skill_tools.errors import EXIT_OK, InputError
from skill_tools.harness import engines
from skill_tools.harness.spec import SIZES, WORKLOADS
from skill_tools.json_output import emit


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--results", type=Path,
                        help="a bench results JSON: predict from its eager profile, check against its A/B (no GPU)")
    parser.add_argument("--workload", choices=WORKLOADS, default="dense",
                        help="model to profile: dense GPT, dropless MoE or drop-and-pad MoE (default: dense)")
    parser.add_argument("--size", choices=tuple(SIZES), default="tiny",
                        help="tiny is launch-bound (graphs pay off most), large is compute-bound (default: tiny)")
    parser.add_argument("--steps", type=int, default=20, help="measured steps (default: 20)")
    parser.add_argument("--profile-steps", type=int, default=10, help="steps under torch.profiler (default: 10)")
    parser.add_argument("--graph", default=None,
                        help="graph variant for the checking A/B (default: full_iteration; te:... for MoE)")
    parser.add_argument("--no-ab", action="store_true", help="profile eager only; no checking A/B")
    parser.add_argument("--timeout", type=float, default=300, help="seconds per GPU run before it is stopped (default: 300)")
    parser.add_argument("--out", type=Path, default=Path("precheck-out"),
                        help="folder for the results JSON and run logs (default: precheck-out)")
    parser.add_argument("--engine", choices=engines.names(), default=engines.DEFAULT, help=engines.help_text())
    parser.add_argument("--megatron-lm", metavar="PATH",
                        help="engine megatron-lm: a Megatron-LM checkout of the megatron-core tag (0.16-0.17)")
    parser.add_argument("--mcore-version", help="megatron-core version (default: the installed one)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    from skill_tools.plan.cli import add_arguments as add_plan_arguments

    add_plan_arguments(parser, precheck=True)


def run(args: argparse.Namespace) -> int:
    if args.config is not None:
        from skill_tools.plan.cli import run as run_plan

        return run_plan(args)
    from skill_tools.harness.precheck import predict_from_results
    from skill_tools.harness.results import load_results, write_results

    if args.results is not None:
        doc = load_results(args.results)
    else:
        from skill_tools.harness import bench

        if args.steps < 1 or args.profile_steps < 1:
            raise InputError("--steps/--profile-steps", "must be at least 1")
        graph = args.graph or ("full_iteration" if args.workload == "dense" else "te:attn+moe_router+moe_preprocess")
        plan = bench.plan(bench.BenchRequest(
            engine=args.engine, workload=args.workload, size=args.size, steps=args.steps, trials=1,
            profile_steps=args.profile_steps, variants=("eager",) if args.no_ab else ("eager", graph),
            mcore_version=args.mcore_version, megatron_lm=args.megatron_lm))
        doc = bench.run(plan, out_dir=args.out, timeout_s=args.timeout, progress=not args.json)
    pred = predict_from_results(doc)
    if args.results is None:
        doc = dict(doc, kind="precheck", precheck=pred.to_dict())
        write_results(doc, args.out / f"{doc['date']}-precheck-{args.workload}-{args.size}.json")
    if args.json:
        emit("precheck", pred.to_dict(), kind="prediction")
    else:
        print(f"eager step {pred.eager_step_ms:.3f} ms, kernels {pred.kernel_ms_per_step:.3f} ms/step: "
              f"host-gap fraction {100 * pred.host_gap_fraction:.0f}%")
        print(("PREDICT: graphs pay off — " if pred.pays_off else "PREDICT: graphs will not pay off — ") + pred.reason)
        if pred.measured_speedup is not None:
            verdict = "confirmed" if pred.prediction_correct else "NOT confirmed"
            print(f"measured: {pred.measured_variant} {pred.measured_speedup:.2f}x vs eager -> prediction {verdict}")
    return EXIT_OK
