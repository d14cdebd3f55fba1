"""`skill-tools bench`: eager-vs-graph measurements through Megatron-LM's or Megatron Bridge's own
training loop, MCore's inference engine, or the proxy loop (GPU); or the Bridge
``scripts/performance/run_script.py`` command pair (no GPU needed)."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from skill_tools.errors import EXIT_OK, InputError
from skill_tools.harness.inference_workloads import ALIASES, WORKLOADS

SIZES = ("tiny", "small", "medium", "large")
TRAINING_WORKLOADS = ("dense", "moe", "moe_droppad")
#: ``--mode inference`` models beyond the training names (``dense``/``moe`` alias tiny-gpt/tiny-moe)
INFERENCE_ONLY = tuple(w for w in WORKLOADS if w not in ALIASES.values())


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mode", choices=("training", "inference"), default="training",
                        help="training step graphs (default) or inference decode graphs")
    parser.add_argument("--engine", choices=("megatron-lm", "bridge", "proxy"), default="megatron-lm",
                        help="megatron-lm (default): Megatron-LM's own pretrain() with the rendered flags; "
                             "bridge: Megatron Bridge's own pretrain() with the rendered Hydra overrides; "
                             "proxy: the harness's own MCore loop, a capture micro-benchmark (not user behaviour)")
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
    parser.add_argument("--config", type=Path, help="a config (Bridge YAML, Python recipe, ...) to map onto the proxy")
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
    parser.add_argument("--trials", type=int, default=2, help="interleaved trials per variant (default: 2)")
    parser.add_argument("--nproc", type=int, default=1, help="processes (GPUs) per variant (torchrun)")
    parser.add_argument("--tp", type=int, default=1, help="engine megatron-lm: tensor-parallel size")
    parser.add_argument("--pp", type=int, default=1, help="engine megatron-lm: pipeline-parallel size")
    parser.add_argument("--vpp-layers", type=int, help="engine megatron-lm: layers per virtual pipeline stage "
                                                       "(interleaved 1F1B; needs --pp > 1)")
    parser.add_argument("--ep", type=int, default=1, help="engine megatron-lm: expert-parallel size (MoE workloads)")
    parser.add_argument("--microbatches", type=int, default=1,
                        help="micro-batches per step and data-parallel rank (PP needs several to fill the pipeline)")
    parser.add_argument("--timeout", type=float, default=300, help="seconds before a variant counts as hung")
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
    # inference pass-through (read by skill_tools.harness.inference_runner)
    parser.add_argument("--batch-sizes", default="1,2,4,8", help="inference: decode batch sizes")
    parser.add_argument("--decode-tokens", type=int, default=64, help="inference: tokens decoded per request")
    parser.add_argument("--inference-scope", default="none,layer,block",
                        help="inference: inference_cuda_graph_scope values to compare")
    parser.add_argument("--no-same-shape-eager", action="store_true",
                        help="inference: skip the eager control padded to the graphs' batch buckets "
                             "(it separates replay errors from shape-dependent bf16 rounding)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def _variant_specs(args: argparse.Namespace):
    from skill_tools.harness.spec import (
        DEFAULT_VARIANTS, VariantSpec, named_variant, proxy_notes, spec_from_config, spec_from_intent,
    )
    from skill_tools.config.era import GraphIntent

    common = dict(engine=args.engine, workload=args.workload, size=args.size, steps=args.steps,
                  warmup_steps=args.warmup, nproc=args.nproc, layer_spec=args.layer_spec,
                  capture_stream="shared" if args.same_stream else args.capture_stream,
                  num_microbatches=args.microbatches)
    layout = dict(tp=args.tp, pp=args.pp, ep=args.ep, vpp_layers=args.vpp_layers)
    if args.engine == "megatron-lm":
        from skill_tools.harness.real_loop import layout_problem

        problem = layout_problem(args.workload, args.size, args.nproc, args.microbatches, **layout)
        if problem:
            raise InputError("--tp/--pp/--ep/--vpp-layers", problem[0], hint=problem[1])
        common.update(layout)
    elif any(v not in (1, None) for v in layout.values()):
        raise InputError("--tp/--pp/--ep/--vpp-layers", "parallel layouts run only with --engine megatron-lm",
                         hint="drop them, or use --engine megatron-lm")
    if args.engine in ("megatron-lm", "bridge"):
        if args.same_stream or args.capture_stream != "auto":
            raise InputError("--capture-stream", "the capture stream is a setting of --engine proxy; Megatron-LM's "
                             "own loop decides its streams", hint="drop --same-stream/--capture-stream, or add "
                                                                  "--engine proxy")
        # The framework decides its streams; its profiled iterations follow the measured ones.
        common.update(capture_stream="default", profile_steps=2)
    notes: list[str] = []
    user_cfg = None
    if args.config is not None:
        from skill_tools.config.readers import read_path

        user_cfg = read_path(args.config)
        notes = proxy_notes(user_cfg)
        plan = {k: v for k, v in common.items() if k not in ("workload", "size")}
        chosen = [spec_from_config(user_cfg, workload=args.workload, size=args.size, **plan)]
    elif args.impl is not None:
        modules = tuple(m.strip() for m in (args.scope or "").split(",") if m.strip())
        if modules and args.impl != "transformer_engine":
            raise InputError("--scope", f"--scope applies to --impl transformer_engine, not {args.impl}",
                             hint="drop --scope, or use --impl transformer_engine")
        plan = {k: v for k, v in common.items() if k not in ("workload", "size", "warmup_steps")}
        chosen = [spec_from_intent(GraphIntent(impl=args.impl, modules=modules, warmup_steps=args.warmup),
                                   workload=args.workload, size=args.size,
                                   optimizer_graph=args.optimizer_graph, **plan)]
    else:
        names = [n.strip() for n in (args.variants or "").split(",") if n.strip()] or list(
            DEFAULT_VARIANTS[args.workload])
        chosen = [named_variant(n, **common) for n in names]
        from skill_tools.harness.spec import proxy_problem

        for s in chosen:
            problem = proxy_problem(s.impl, s.modules, s.workload)
            if problem:
                raise InputError("--variants", f"{s.name} cannot run on the {s.workload} proxy: {problem.reason}",
                                 hint=problem.hint)
    specs = [s for s in chosen if s.name != "eager"]
    eager = VariantSpec(name="eager", **common)
    return [eager, *specs], user_cfg, notes


def _bridge_accepts(specs, era, notes: list[str]) -> list:
    """The default variants Bridge's own rules accept (per-layer ``local`` is not one); each one
    left out is named in the notes."""
    from skill_tools.harness import bridge_loop

    kept = []
    for spec in specs:
        try:
            bridge_loop.refuse_illegal([spec], era)
            kept.append(spec)
        except InputError as exc:
            notes.append(f"default variant {spec.name} left out for --engine bridge: {exc}")
    return kept


def _bridge_cmd(args: argparse.Namespace) -> int:
    from skill_tools.harness.bridge_cmd import bridge_command_pair

    pair = bridge_command_pair(args)
    if args.json:
        print(json.dumps(pair, indent=2))
    else:
        print("# eager")
        print(" ".join(shlex.quote(x) for x in pair["eager"]))
        print(f"# graph ({pair['graph_label']})")
        print(" ".join(shlex.quote(x) for x in pair["graph"]))
        for note in pair.get("notes", []):
            print(f"# note: {note}")
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    if args.mode != "inference" and args.workload not in TRAINING_WORKLOADS:
        raise InputError("--workload", f"{args.workload} is an inference workload",
                         hint=f"add --mode inference, or train one of {', '.join(TRAINING_WORKLOADS)}")
    if args.mode == "inference":
        from skill_tools.harness.inference_runner import run_inference_bench

        return run_inference_bench(args)
    if args.list_variants:
        from skill_tools.harness.spec import DEFAULT_VARIANTS, NAMED

        rows = {name: {"impl": n.impl, "modules": list(n.modules), "optimizer_graph": n.optimizer_graph,
                       "capturable_optimizer": n.capturable_optimizer} for name, n in NAMED.items()}
        print(json.dumps({"variants": rows, "defaults": DEFAULT_VARIANTS}, indent=2) if args.json
              else "\n".join(f"{n:36s} impl={r['impl']} modules={','.join(r['modules']) or '-'}"
                             f"{' +optimizer graph' if r['optimizer_graph'] else ''}"
                             f"{' +capturable Adam (step eager)' if r['capturable_optimizer'] else ''}"
                             for n, r in rows.items()))
        return EXIT_OK
    if args.bridge_cmd:
        return _bridge_cmd(args)
    if args.rebuild is not None:
        return _rebuild(args)
    for name, value in (("--steps", args.steps), ("--trials", args.trials), ("--nproc", args.nproc),
                        ("--warmup", args.warmup)):
        if value < 1:
            raise InputError(name, f"must be at least 1, got {value}")

    from skill_tools.harness.runner import require_gpu, run_variants
    from skill_tools.harness.spec import refuse_illegal

    from skill_tools.config.era import resolve_era

    era = resolve_era(args.mcore_version)
    specs, user_cfg, notes = _variant_specs(args)
    run_one, flags, workload, as_run = None, {}, None, None
    worker = "torchrun -m skill_tools.harness.worker (proxy loop)"
    if args.engine == "megatron-lm":
        from functools import partial

        from skill_tools.harness import real_loop

        training = real_loop.locate_training(args.megatron_lm, era)
        run_one = partial(real_loop.run_one, era=era, training=training)
        flags = {s.name: real_loop.run_flags(s, era) for s in specs}
        worker = real_loop.WORKER
        as_run = lambda s: real_loop.flags_config(s, era)  # noqa: E731 - judged as the flags it will run
    elif args.engine == "bridge":
        from functools import partial

        from skill_tools.harness import bridge_loop

        run_one = partial(bridge_loop.run_one, era=era)
        flags = {s.name: bridge_loop.run_overrides(s, era) for s in specs}
        worker = bridge_loop.WORKER
        workload = bridge_loop.workload_record(specs[0], args.trials)
    if args.run_rejected:
        rejected = _rejected(specs, era, as_run)
        notes.extend(f"run although rejected (--run-rejected): {n}: {', '.join(r)}" for n, r in rejected.items())
    elif args.engine == "bridge":
        if not (args.variants or args.impl or args.config):  # the default set: leave out what Bridge refuses
            specs = _bridge_accepts(specs, era, notes)
        bridge_loop.refuse_illegal(specs, era)  # Bridge's own rules (front end bridge), before any GPU time
    else:
        refuse_illegal(specs, user_cfg, era, config=as_run)  # before any GPU time
    if args.dry_run:
        key = "bridge_overrides" if args.engine == "bridge" else "megatron_lm_flags"
        plan = {"engine": args.engine, "variants": [s.to_dict() | ({key: flags[s.name]} if flags else {})
                                                    for s in specs],
                "trials": args.trials, "notes": notes, "order": "interleaved by trial", "worker": worker}
        print(json.dumps(plan, indent=1) if args.json else "\n".join(
            f"{s.name:36s} impl={s.impl} modules={','.join(s.modules) or '-'} steps={s.steps} "
            f"warmup={s.warmup_steps}" + (f"\n    {shlex.join(flags[s.name])}" if flags else "") for s in specs)
            + "".join(f"\nnote: {n}" for n in notes))
        return EXIT_OK
    require_gpu()
    doc = run_variants(specs, trials=args.trials, out_dir=args.out, timeout_s=args.timeout,
                       progress=not args.no_progress, workload=workload, **({"run": run_one} if run_one else {}))
    if notes:
        doc["notes"] = notes
    from skill_tools.harness.report import markdown, write_outputs

    layout = "".join(f"-{k}{v}" for k, v in (("tp", args.tp), ("pp", args.pp), ("vpp", args.vpp_layers),
                                               ("ep", args.ep)) if v not in (None, 1))
    stem = args.name or f"{doc['date']}-training-{args.engine}-{args.workload}-{args.size}{layout}"
    paths = write_outputs(doc, args.out, stem)
    if args.json:
        print(json.dumps({"results": doc, "files": {k: str(v) for k, v in paths.items()}}, indent=1))
    else:
        print(markdown(doc))
        print(f"results: {paths['json']}", file=sys.stderr)
    failed = [v["name"] for v in doc["variants"] if v["error_class"]]
    return 1 if failed else EXIT_OK


def _rebuild(args: argparse.Namespace) -> int:
    """``--rebuild RESULTS.json``: the results derived again from the committed logs and sidecars."""
    from skill_tools.harness.rebuild import rebuild
    from skill_tools.harness.report import markdown, write_outputs

    from skill_tools.input_file import stat_input

    path = args.rebuild
    stat_input(str(path))  # missing, too long, a folder: one line each (the reader refuses the rest)
    doc = rebuild(path, args.run_dir)
    paths = write_outputs(doc, path.parent, path.stem)
    if args.json:
        print(json.dumps({"results": doc, "files": {k: str(v) for k, v in paths.items()}}, indent=1))
    else:
        print(markdown(doc))
        print(f"results: {paths['json']}", file=sys.stderr)
    return EXIT_OK


def _rejected(specs, era, as_run) -> dict[str, list[str]]:
    """Variant name -> the rule ids whose errors ``--run-rejected`` overrides."""
    from skill_tools.harness.spec import config_of, validator_errors

    out = {}
    for s in specs:
        errors = validator_errors(as_run(s) if as_run else config_of(s, era), era) or []
        if errors:
            out[s.name] = sorted({str(e.get("rule")) for e in errors})
    return out
