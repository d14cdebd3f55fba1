"""`skill-tools precheck`: profile eager steps, report the host-gap fraction, predict whether
CUDA graphs pay off, and check the prediction against a measured eager-vs-graph A/B."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from skill_tools.errors import EXIT_OK, InputError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--results", type=Path,
                        help="a bench results JSON: predict from its eager profile, check against its A/B (no GPU)")
    parser.add_argument("--workload", choices=("dense", "moe", "moe_droppad"), default="dense",
                        help="model to profile: dense GPT, dropless MoE or drop-and-pad MoE (default: dense)")
    parser.add_argument("--size", choices=("tiny", "small", "medium", "large"), default="tiny",
                        help="tiny is launch-bound (graphs pay off most), large is compute-bound (default: tiny)")
    parser.add_argument("--steps", type=int, default=20, help="measured steps (default: 20)")
    parser.add_argument("--profile-steps", type=int, default=10, help="steps under torch.profiler (default: 10)")
    parser.add_argument("--graph", default=None,
                        help="graph variant for the checking A/B (default: full_iteration; te:... for MoE)")
    parser.add_argument("--no-ab", action="store_true", help="profile eager only; no checking A/B")
    parser.add_argument("--timeout", type=float, default=300, help="seconds per GPU run before it is stopped (default: 300)")
    parser.add_argument("--out", type=Path, default=Path("precheck-out"),
                        help="folder for the results JSON and run logs (default: precheck-out)")
    parser.add_argument("--engine", choices=("megatron-lm", "proxy"), default="megatron-lm",
                        help="megatron-lm (default): Megatron-LM's own pretrain(); proxy: the harness's own loop "
                             "(a capture micro-benchmark, not user behaviour)")
    parser.add_argument("--megatron-lm", metavar="PATH",
                        help="engine megatron-lm: a Megatron-LM checkout of the megatron-core tag (0.16-0.17)")
    parser.add_argument("--mcore-version", help="megatron-core version (default: the installed one)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def run(args: argparse.Namespace) -> int:
    from skill_tools.harness.precheck import predict_from_results
    from skill_tools.harness.results import load_results, write_results

    if args.results is not None:
        doc = load_results(args.results)
    else:
        from skill_tools.harness.runner import require_gpu, run_variants
        from skill_tools.harness.spec import named_variant, proxy_problem, refuse_illegal

        graph = args.graph or ("full_iteration" if args.workload == "dense" else "te:attn+moe_router+moe_preprocess")
        if args.steps < 1 or args.profile_steps < 1:
            raise InputError("--steps/--profile-steps", "must be at least 1")
        common = dict(engine=args.engine, workload=args.workload, size=args.size, steps=args.steps,
                      profile_steps=args.profile_steps)
        run_kw = {}
        if args.engine == "megatron-lm":
            from functools import partial

            from skill_tools.config.era import resolve_era
            from skill_tools.harness import real_loop

            era = resolve_era(args.mcore_version)
            common["capture_stream"] = "default"  # Megatron-LM decides its streams
            run_kw["run"] = partial(real_loop.run_one, era=era,
                                    training=real_loop.locate_training(args.megatron_lm, era))
        specs = [named_variant("eager", **common)]
        if not args.no_ab:
            spec = named_variant(graph, **common)
            problem = proxy_problem(spec.impl, spec.modules, spec.workload)
            if problem:
                raise InputError("--graph", f"{graph} cannot run on the {args.workload} proxy: {problem.reason}",
                                 hint=problem.hint)
            specs.append(spec)
        refuse_illegal(specs)
        require_gpu()
        doc = run_variants(specs, trials=1, out_dir=args.out, timeout_s=args.timeout, progress=not args.json,
                           **run_kw)
    pred = predict_from_results(doc)
    if args.results is None:
        doc = dict(doc, kind="precheck", precheck=pred.to_dict())
        write_results(doc, args.out / f"{doc['date']}-precheck-{args.workload}-{args.size}.json")
    if args.json:
        print(json.dumps(pred.to_dict(), indent=2))
    else:
        print(f"eager step {pred.eager_step_ms:.3f} ms, kernels {pred.kernel_ms_per_step:.3f} ms/step: "
              f"host-gap fraction {100 * pred.host_gap_fraction:.0f}%")
        print(("PREDICT: graphs pay off — " if pred.pays_off else "PREDICT: graphs will not pay off — ") + pred.reason)
        if pred.measured_speedup is not None:
            verdict = "confirmed" if pred.prediction_correct else "NOT confirmed"
            print(f"measured: {pred.measured_variant} {pred.measured_speedup:.2f}x vs eager -> prediction {verdict}")
    return EXIT_OK
