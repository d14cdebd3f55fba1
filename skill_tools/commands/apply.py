"""`skill-tools apply PATH --impl I --scope a,b [--warmup N] [--inference-scope S]
[--mcore-version] [--format F] [--out FILE | --in-place] [--json]`.

Writes what Bridge's ``_set_cuda_graph_overrides`` would, for the target era, with the
prerequisites (RNG trackers, NaN checks off for full iteration). An illegal result is refused
(exit 1, nothing written). YAML input rewritten as YAML keeps comments and key order; files
are written atomically. Launch scripts (Megatron-LM or run_script.py flags, Hydra overrides)
are edited in place: only the graph flags change, everything else stays byte for byte.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from skill_tools.commands._common import add_config_arguments, config_source, env_from
from skill_tools.config.render import RENDER_FORMATS
from skill_tools.errors import EXIT_FINDINGS, EXIT_OK, InputError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_arguments(parser)
    parser.add_argument("--impl", help="none | local | transformer_engine | full_iteration")
    parser.add_argument("--scope", help="comma-separated: attn,mlp,moe,moe_router,moe_preprocess,mamba or full_iteration")
    parser.add_argument("--warmup", type=int, help="cuda_graph_warmup_steps")
    parser.add_argument("--inference-scope", choices=("none", "layer", "block"), help="inference_cuda_graph_scope (0.18+)")
    parser.add_argument("--format", choices=RENDER_FORMATS, help="output format (default: the input's)")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--out", help="write the whole updated config here (- for standard output); a symlink is "
                                   "written through, an existing file keeps its mode and owner")
    out.add_argument("--in-place", action="store_true", help="rewrite PATH itself")


def run(args: argparse.Namespace) -> int:
    from skill_tools.api import apply, load
    from skill_tools.config.render import render, render_report
    from skill_tools.config.shell_edit import SPLICED_FORMATS, flags_in_strings, splice
    from skill_tools.output_file import resolve_target, write_text
    from skill_tools.overrides import REMOVE, apply_changes, override_values, rewrite_yaml, unified_diff

    if args.in_place and args.path == "-":
        raise InputError("--in-place", "cannot rewrite standard input", hint="pass a file path, or use --out FILE|-")
    to_stdout = args.out == "-"
    if to_stdout and args.json:
        raise InputError("--out", "- (standard output) cannot be combined with --json",
                         hint="the --json payload holds the overrides; or --out FILE")
    if args.in_place or (args.out and not to_stdout):  # refuse a bad target before any work
        resolve_target(args.path if args.in_place else args.out, "--in-place" if args.in_place else "--out")
    if args.impl is None and args.scope is None and args.inference_scope is None and args.warmup is None:
        raise InputError("apply", "nothing to apply", hint="pass --impl and/or --scope (e.g. --impl transformer_engine --scope attn)")
    cfg = load(config_source(args), args.input_format)
    result = apply(cfg, args.impl, args.scope, warmup=args.warmup, inference_scope=args.inference_scope,
                   mcore_version=args.mcore_version, env=env_from(args), te_version=args.te_version)
    fmt = args.format or (cfg.fmt if cfg.fmt in RENDER_FORMATS else "yaml")
    target = args.path if args.in_place else args.out
    payload = result.to_dict()
    if not result.ok:
        if args.json:
            print(json.dumps(payload, indent=2))
        else:
            print(f"refused: the result would not be valid for megatron-core {result.era.mcore_version}:")
            for f in result.findings:
                if f.severity == "error":
                    print(f"  {f}")
        return EXIT_FINDINGS
    always = ("model.cuda_graph_impl", "model." + result.era.modules_key)
    changes = {k: v for k, v in result.changes.items()
               if k in always or cfg.get(k, REMOVE if v != REMOVE else None) != v}
    rendered = render_report(override_values(changes), fmt, result.era)
    overrides = rendered.text
    for key, value in rendered.unsaid.items():
        result.notes.append(f"{key}={value!r} has no {fmt} spelling ({rendered.parser}); set it in the config")
    original = Path(args.path).read_text(encoding="utf-8") if args.path != "-" else None
    if fmt == "yaml" and cfg.fmt == "yaml" and original is not None:
        new_text = rewrite_yaml(original, changes, source=args.path)
    elif fmt == cfg.fmt and fmt in SPLICED_FORMATS and original is not None:
        # a launch script keeps its launcher, comments and other flags byte for byte
        new_text = splice(original, fmt, override_values(changes), rendered.parts, result.era)
        for option, line in flags_in_strings(original, fmt, changes, result.era):
            result.notes.append(f"{option} at line {line} is inside a shell string variable: edit it by hand "
                                "(the new flags were added to the command, where the last one wins)")
    elif target is not None:
        new_text = render(apply_changes(cfg, changes), fmt, result.era)
    else:
        new_text = overrides
    diff = unified_diff(original, new_text, Path(args.path).name) if original is not None and fmt == cfg.fmt else ""
    if to_stdout:
        write_text("-", new_text)
        print(f"megatron-core {result.era.mcore_version} ({result.era.label}): {len(changes)} change(s)"
              + "".join(f"\n  note: {n}" for n in result.notes), file=sys.stderr)
        return EXIT_OK
    if target is not None:
        write_text(target, new_text, flag="--in-place" if args.in_place else "--out")
    if args.json:
        payload.update(format=fmt, written=str(target) if target else None, diff=diff,
                       overrides=overrides)
        print(json.dumps(payload, indent=2))
    else:
        print(f"megatron-core {result.era.mcore_version} ({result.era.label}): {len(changes)} change(s)")
        for note in result.notes:
            print(f"  note: {note}")
        if target is None and not diff:
            print(new_text, end="")
        elif diff:
            print(diff, end="")
        else:
            print(overrides, end="")
        for f in result.findings:
            print(f"  {f}")
        if target is not None:
            print(f"written: {target}")
    return EXIT_OK
