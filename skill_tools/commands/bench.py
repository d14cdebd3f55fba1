"""`skill-tools bench`: eager-vs-graph measurements through Megatron-LM's or Megatron Bridge's own
training loop, MCore's inference engine, or the proxy loop (GPU); or the Bridge
``scripts/performance/run_script.py`` command pair (no GPU needed)."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from skill_tools.errors import EXIT_OK, InputError
from skill_tools.harness import engines
from skill_tools.harness.inference.workloads import WORKLOADS
from skill_tools.json_output import emit, results_payload

SIZES = ("tiny", "small", "medium", "large")
TRAINING_WORKLOADS = ("dense", "moe", "moe_droppad")
#: ``--mode inference`` models beyond the training names (``dense``/``moe`` alias tiny-gpt/tiny-moe)
#: ``--mode inference`` workloads by their own names (``tiny-gpt``, ``tiny-moe`` are also ``dense``, ``moe``)
INFERENCE_ONLY = tuple(w for w in WORKLOADS if w not in TRAINING_WORKLOADS)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mode", choices=("training", "inference"), default="training",
                        help="training step graphs (default) or inference decode graphs")
    parser.add_argument("--engine", choices=engines.names(), default=engines.DEFAULT, help=engines.help_text())
    parser.add_argument("--megatron-lm", metavar="PATH",
                        help="engine megatron-lm: a Megatron-LM checkout of the installed megatron-core's tag "
                             "(needed for 0.16-0.17, whose wheels lack megatron.training)")
    parser.add_argument("--workload", choices=TRAINING_WORKLOADS + INFERENCE_ONLY, default="dense",
                        help="training: dense GPT, dropless MoE GPT, or drop-and-pad MoE GPT (default: dense); "
                             "--mode inference also takes " + ", ".join(INFERENCE_ONLY))
    parser.add_argument("--size", choices=SIZES, default="tiny",
                        help="tiny is launch-bound (4 layers, hidden 512, seq 256); large is compute-bound")
    parser.add_argument("--impl", choices=("none", "full_iteration", "local", "transformer_engine"),
                        help="one graph implementation to compare with eager (default: the workload's set)")
    parser.add_argument("--scope", help="comma-separated modules for --impl transformer_engine, e.g. attn,mlp")
    parser.add_argument("--optimizer-graph", action="store_true", help="also graph the optimizer step")
    parser.add_argument("--variants", help="comma-separated named variants (see --list-variants)")
    parser.add_argument("--list-variants", action="store_true", help="print the named variants and exit")
    parser.add_argument("--config", help="the user's config (Megatron-LM launch script or flags, Bridge YAML or recipe "
                                         "Python, Hydra overrides) or a Bridge recipe name: plan and measure its own "
                                         "layer shape")
    parser.add_argument("--layer-spec", choices=("te", "local"), default="te", help="TE or local layer spec")
    parser.add_argument("--capture-stream", choices=("auto", "default", "shared"), default="auto",
                        help="stream the model, DDP and every step run on: 'default' as Megatron's loop does, "
                             "'shared' = MCore's capture stream (needed on torch builds without "
                             "set_override_stale_capture_stream: benchmarks/results/"
                             "2026-12-02-training-h200-dense-tiny-same-stream.json), 'auto' (default) picks "
                             "'default' where torch has that function, else 'shared'")
    parser.add_argument("--same-stream", action="store_true", help="the same as --capture-stream shared")
    parser.add_argument("--steps", type=int, default=30, help="measured steps per trial (default: 30)")
    parser.add_argument("--warmup", type=int, default=3, help="eager steps before capture (default: 3)")
    parser.add_argument("--trials", type=int, help="interleaved trials per variant (default: 2 training, 3 inference)")
    parser.add_argument("--nproc", type=int, default=1, help="processes (GPUs) per variant (torchrun)")
    parser.add_argument("--tp", type=int, default=1, help="engine megatron-lm: tensor-parallel size")
    parser.add_argument("--pp", type=int, default=1, help="engine megatron-lm: pipeline-parallel size")
    parser.add_argument("--vpp-layers", type=int, help="engine megatron-lm: layers per virtual pipeline stage "
                                                       "(interleaved 1F1B; needs --pp > 1)")
    parser.add_argument("--ep", type=int, default=1, help="engine megatron-lm: expert-parallel size (MoE workloads)")
    parser.add_argument("--microbatches", type=int, default=1,
                        help="micro-batches per step and data-parallel rank (PP needs several to fill the pipeline)")
    parser.add_argument("--timeout", type=float,
                        help="seconds before a variant counts as hung (default: 300 training, 540 inference)")
    parser.add_argument("--out", type=Path, default=Path("bench-out"), help="output folder (default: bench-out)")
    parser.add_argument("--name", help="results file stem (default: <date>-training-<workload>-<size>)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    parser.add_argument("--run-rejected", action="store_true",
                        help="run variants the validator rejects anyway, to observe how they fail "
                             "(the results record which rules were overridden)")
    parser.add_argument("--dry-run", action="store_true",
                        help="check and print the variants that would run (no GPU needed), then exit")
    parser.add_argument("--rebuild", type=Path, metavar="RESULTS.json",
                        help="engine megatron-lm: derive RESULTS.json (and its .md/.png) again from the run's own "
                             "logs and sidecars in the folder named like it (no GPU; nothing is re-measured)")
    parser.add_argument("--run-dir", type=Path, help="for --rebuild: the folder holding logs/ and raw/ "
                                                     "(default: RESULTS.json without .json)")
    parser.add_argument("--mcore-version", help="megatron-core version whose rules the configs are checked "
                                                "against (default: the installed one)")
    parser.add_argument("--bridge-cmd", action="store_true",
                        help="print the Bridge scripts/performance/run_script.py command pair and exit")
    parser.add_argument("--model-family", default="llama", help="for --bridge-cmd: -m/--model_family_name")
    parser.add_argument("--model-recipe", default="llama3_8b", help="for --bridge-cmd: -mr/--model_recipe_name")
    parser.add_argument("--gpu-name", default="h100", help="for --bridge-cmd: -g/--gpu")
    parser.add_argument("--num-gpus", type=int, default=8, help="for --bridge-cmd: -ng/--num_gpus")
    parser.add_argument("--render", type=Path, metavar="RESULTS.json",
                        help="write the Markdown table and plot of a results JSON again (training or inference; "
                             "no GPU)")
    parser.add_argument("--summary", type=Path, metavar="FOLDER",
                        help="one line per inference results JSON in FOLDER: speedups and token parity (no GPU)")
    from skill_tools.harness.inference.runner import add_arguments as inference_arguments

    inference_arguments(parser)
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    from skill_tools.plan.cli import add_arguments as add_plan_arguments

    add_plan_arguments(parser)


def _bridge_cmd(args: argparse.Namespace) -> int:
    from skill_tools.harness.engines.bridge.command_pair import bridge_command_pair

    pair = bridge_command_pair(args)
    if args.json:
        emit("bench", pair, kind="bridge-command")
    else:
        print("# eager")
        print(" ".join(shlex.quote(x) for x in pair["eager"]))
        print(f"# graph ({pair['graph_label']})")
        print(" ".join(shlex.quote(x) for x in pair["graph"]))
        for note in pair.get("notes", []):
            print(f"# note: {note}")
    return EXIT_OK


def check_args(args: argparse.Namespace) -> str | None:
    """What ``bench`` refuses before it runs anything (``skill-tools`` asks this before ``run``, and
    the eval scorer asks it of a command an answer writes): ``"--flag: why"``, or None."""
    if args.warmup < 0 or (args.mode != "inference" and args.warmup < 1):
        return ("--warmup: a training capture needs at least 1 eager step before it (the first step runs lazy "
                "initialisation: allocations, NCCL communicators, autotuning, which a graph cannot hold)")
    return None


def run(args: argparse.Namespace) -> int:
    if args.mode != "inference" and args.workload not in TRAINING_WORKLOADS:
        raise InputError("--workload", f"{args.workload} is an inference workload",
                         hint=f"add --mode inference, or train one of {', '.join(TRAINING_WORKLOADS)}")
    if args.render is not None:
        return _render(args.render)
    if args.summary is not None:
        from skill_tools.harness.inference.summary import print_folder

        return print_folder(args.summary)
    if args.mode == "inference":
        from skill_tools.harness.inference.runner import run_inference_bench

        return run_inference_bench(args)
    if args.list_variants:
        from skill_tools.harness.spec import DEFAULT_VARIANTS, NAMED

        rows = {name: {"impl": n.impl, "modules": list(n.modules), "optimizer_graph": n.optimizer_graph,
                       "capturable_optimizer": n.capturable_optimizer} for name, n in NAMED.items()}
        if args.json:
            emit("bench", {"variants": rows, "defaults": DEFAULT_VARIANTS}, kind="variants")
            return EXIT_OK
        print("\n".join(f"{n:36s} impl={r['impl']} modules={','.join(r['modules']) or '-'}"
                             f"{' +optimizer graph' if r['optimizer_graph'] else ''}"
                             f"{' +capturable Adam (step eager)' if r['capturable_optimizer'] else ''}"
                             for n, r in rows.items()))
        return EXIT_OK
    if args.bridge_cmd:
        return _bridge_cmd(args)
    if args.rebuild is not None:
        return _rebuild(args)
    if args.config is not None:
        from skill_tools.plan.cli import run as run_plan

        return run_plan(args)
    from skill_tools.harness import bench

    plan = bench.plan(_request(args))
    if args.dry_run:
        doc = plan.dry_run()
        key = plan.engine.arguments_key
        if args.json:
            emit("bench", doc, kind="dry-run", indent=1)
            return EXIT_OK
        print("\n".join(
            f"{v['name']:36s} impl={v['impl']} modules={','.join(v['modules']) or '-'} steps={v['steps']} "
            f"warmup={v['warmup_steps']}" + (f"\n    {shlex.join(v[key])}" if key else "") for v in doc["variants"])
            + "".join(f"\nnote: {n}" for n in doc["notes"]))
        return EXIT_OK
    doc = bench.run(plan, out_dir=args.out, timeout_s=300 if args.timeout is None else args.timeout,
                    progress=not args.no_progress)
    return _report(doc, args.out, args.name or plan.stem(doc["date"]), args.json,
                   failed=any(v["error_class"] for v in doc["variants"]))


def _request(args: argparse.Namespace):
    """The CLI's options as the harness's :class:`~skill_tools.harness.bench.BenchRequest`."""
    from skill_tools.harness.bench import BenchRequest

    return BenchRequest(
        engine=args.engine, workload=args.workload, size=args.size, impl=args.impl,
        modules=tuple(m.strip() for m in (args.scope or "").split(",") if m.strip()),
        optimizer_graph=args.optimizer_graph,
        variants=tuple(n.strip() for n in (args.variants or "").split(",") if n.strip()),
        config=args.config, layer_spec=args.layer_spec,
        capture_stream="shared" if args.same_stream else args.capture_stream, steps=args.steps,
        warmup=args.warmup, trials=2 if args.trials is None else args.trials, nproc=args.nproc, tp=args.tp, pp=args.pp,
        vpp_layers=args.vpp_layers, ep=args.ep, microbatches=args.microbatches, run_rejected=args.run_rejected,
        mcore_version=args.mcore_version, megatron_lm=args.megatron_lm)


def _report(doc: dict, out: Path, stem: str, as_json: bool, failed: bool = False) -> int:
    from skill_tools.harness.report import markdown, write_outputs

    paths = write_outputs(doc, out, stem)
    if as_json:
        emit("bench", results_payload(doc, paths), kind="results", indent=1)
    else:
        print(markdown(doc))
        print(f"results: {paths['json']}", file=sys.stderr)
    return 1 if failed else EXIT_OK


def _rebuild(args: argparse.Namespace) -> int:
    """``--rebuild RESULTS.json``: the results derived again from the committed logs and sidecars."""
    from skill_tools.harness.rebuild import rebuild
    from skill_tools.input_file import stat_input

    path = args.rebuild
    stat_input(str(path))  # missing, too long, a folder: one line each (the reader refuses the rest)
    return _report(rebuild(path, args.run_dir), path.parent, path.stem, args.json)


def _render(path: Path) -> int:
    """``--render RESULTS.json``: the Markdown table and plot beside a results file, written again."""
    from skill_tools.harness.results import load_results
    from skill_tools.input_file import stat_input

    stat_input(str(path))
    doc = load_results(path)
    if doc.get("kind") == "inference":
        from skill_tools.harness.inference.report import render_markdown, render_plot

        path.with_suffix(".md").write_text(render_markdown(doc))
        render_plot(doc, path.with_suffix(".png"))
    else:
        from skill_tools.harness.report import markdown, plot

        path.with_suffix(".md").write_text(markdown(doc))
        plot(doc, path.with_suffix(".png"))
    print(f"wrote {path.with_suffix('.md')}", file=sys.stderr)
    return EXIT_OK
