"""The plan's options and output for ``bench --config`` and ``precheck --config`` (one call each)."""

from __future__ import annotations

import argparse
import json
import sys

from skill_tools.errors import EXIT_BAD_INPUT, EXIT_OK


def add_arguments(parser: argparse.ArgumentParser, *, precheck: bool = False) -> None:
    group = parser.add_argument_group(  # precheck --config plans only; bench --config runs the plan
        "plan (--config FILE: the user's own model's layer shape fitted to the GPU; precheck prints the plan "
        "and measures nothing: run `bench --config FILE` to measure)" if precheck else
        "plan (--config FILE: measure the user's own model)")
    if precheck:
        group.add_argument("--config", help="a config (launch script, Bridge YAML/recipe, Hydra overrides) or a "
                                            "Bridge recipe name: plan its own layer shape (no GPU needed)")
        group.add_argument("--nproc", type=int, default=1, help="GPUs at hand for the plan (default: 1)")
    else:
        group.add_argument("--plan-cluster", action="store_true",
                           help="with --config: print the full-size A/B as your own torchrun/srun or run_script.py "
                                "jobs, one per variant, and how to read their logs; no GPU")
    group.add_argument("--layers", type=int, default=4,
                       help="at most this many layers of the config's shape per run (default: 4)")
    group.add_argument("--gpu-type", default="h200", help="GPU the plan fits to (h200, h100, b200, a100, gb200)")
    group.add_argument("--gpu-memory-gb", type=float, help="GPU memory in GB (default: the --gpu-type's)")
    group.add_argument("--gpus-per-node", type=int, default=8, help="--plan-cluster: GPUs per node (default: 8)")


def build_from_args(args: argparse.Namespace):
    from skill_tools.config.era import resolve_era
    from skill_tools.plan import build

    era = resolve_era(getattr(args, "mcore_version", None))
    engine = getattr(args, "engine", "megatron-lm")
    return build(args.config, gpus=args.nproc, gpu_name=args.gpu_type, capacity_gb=args.gpu_memory_gb,
                 max_layers=args.layers, engine=engine, era=era), era


def _select(args: argparse.Namespace, plan, era) -> None:
    from skill_tools.errors import InputError
    from skill_tools.plan import read_input, recipes
    from skill_tools.plan.candidates import select

    cfg = read_input(args.config)[0]
    if plan.recipe:
        recipes.fill(cfg, plan.recipe)
    names = [n.strip() for n in args.variants.split(",") if n.strip()]
    try:
        plan.candidates = select(plan.candidates, names, cfg, plan.shape, era)
    except ValueError as exc:
        raise InputError("--variants", str(exc), hint="the plan's candidates: "
                         + ", ".join(c.name for c in plan.candidates)) from None


def print_plan(plan, as_json: bool) -> None:
    from skill_tools.plan import text

    print(json.dumps(plan.to_dict(), indent=1, default=str) if as_json else text(plan))


def run(args: argparse.Namespace) -> int | None:
    """Print the plan (``--dry-run``, precheck) or the cluster jobs (``--plan-cluster``) for
    ``--config``; None when the command should go on (no ``--config``). Exit 2 on a refusal."""
    if getattr(args, "config", None) is None:
        return None
    plan, era = build_from_args(args)
    if getattr(args, "variants", None):
        _select(args, plan, era)
    if getattr(args, "plan_cluster", False):
        from skill_tools.plan import read_input
        from skill_tools.plan.cluster import cluster_plan, cluster_text

        cfg = read_input(args.config)[0]
        if plan.recipe:
            from skill_tools.plan import recipes

            recipes.fill(cfg, plan.recipe)
        doc = cluster_plan(cfg, plan, era, gpus_per_node=args.gpus_per_node,
                           gpu=getattr(args, "gpu_name", "h100"))
        doc["plan_refusals"] = [r.to_dict() for r in plan.refusals]
        print(json.dumps(doc, indent=1) if args.json else cluster_text(doc))
        return EXIT_OK
    if plan.refused or getattr(args, "plan_cluster", None) is None:  # precheck --config: the plan only
        print_plan(plan, args.json)
        for r in plan.refusals:
            print(f"skill-tools: {r.line()}", file=sys.stderr)
        return EXIT_BAD_INPUT if plan.refused else EXIT_OK
    return _bench(args, plan)


def _bench(args: argparse.Namespace, plan) -> int:
    """``bench --config``: the plan, then (unless ``--dry-run``) its variants through the engine."""
    from skill_tools.errors import InputError
    from skill_tools.plan import measure, text

    if args.engine == "proxy":
        raise InputError("--engine proxy", "the proxy loop builds only its own tiny workloads, not a config's shape",
                         hint="drop --engine (megatron-lm runs Megatron-LM's pretrain on your layer shape), or use "
                              "--engine bridge")
    doc, checked = measure.run(args, plan)
    if doc is None:
        flags = checked.arguments()
        if args.json:
            print(json.dumps(plan.to_dict() | {"bench": checked.dry_run()}, indent=1, default=str))
        else:
            print(text(plan))
            for s in checked.specs:
                print(f"{s.name}: " + " ".join(flags.get(s.name, [])))
        return EXIT_OK
    from skill_tools.harness.report import markdown, write_outputs
    from skill_tools.plan import report

    stem = args.name or checked.stem(doc["date"])
    lines = [report.decision(doc), *report.memory_lines(doc, plan), *report.headroom_lines(doc)]
    doc["decision"] = lines[0]
    doc["headroom_report"] = lines[1:]
    paths = write_outputs(doc, args.out, stem)
    if args.json:
        from skill_tools.json_output import emit, results_payload

        emit("bench", results_payload(doc, paths), kind="results", indent=1)
    else:
        print(text(plan))
        print(markdown(doc))
        print("\n".join(lines))
        print(f"results: {paths['json']}", file=sys.stderr)
    return 1 if any(v["error_class"] for v in doc["variants"]) else EXIT_OK
