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
import sys
from pathlib import Path

from skill_tools.commands._common import add_config_arguments, env_from, refuse_non_path, scope_and_path
from skill_tools.config.render import RENDER_FORMATS
from skill_tools.errors import EXIT_FINDINGS, EXIT_OK, InputError
from skill_tools.json_output import MAX_ITEMS, MAX_TEXT, emit


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_arguments(parser, path_optional=True)
    parser.add_argument("--impl", help="none | local | transformer_engine | full_iteration")
    parser.add_argument("--scope", nargs="+", metavar="MODULE",
                        help="attn,mlp,moe,moe_router,moe_preprocess,mamba or full_iteration: comma- or "
                             "space-separated (attn,mlp or attn mlp)")
    parser.add_argument("--warmup", type=int, help="cuda_graph_warmup_steps")
    parser.add_argument("--inference-scope", choices=("none", "layer", "block"), help="inference_cuda_graph_scope (0.18+)")
    parser.add_argument("--format", choices=RENDER_FORMATS, help="output format (default: the input's)")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--out", help="write the whole updated config here (- for standard output); a symlink is "
                                   "written through, an existing file keeps its mode and owner")
    out.add_argument("--in-place", action="store_true", help="rewrite PATH itself")


def run(args: argparse.Namespace) -> int:
    from skill_tools.api import apply, load
    from skill_tools.config.edit import check_reads_back, edit_text
    from skill_tools.config.render import render, render_report
    from skill_tools.output_file import resolve_target, write_text
    from skill_tools.overrides import REMOVE, apply_changes, override_values, unified_diff

    scope_and_path(args)
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
    original, bom, cfg = _read(args)
    cfg = load(cfg)
    result = apply(cfg, args.impl, args.scope, warmup=args.warmup, inference_scope=args.inference_scope,
                   mcore_version=args.mcore_version, env=env_from(args), te_version=args.te_version)
    fmt = args.format or (cfg.fmt if cfg.fmt in RENDER_FORMATS else "yaml")
    if args.in_place and fmt != cfg.fmt:
        raise InputError("--in-place", f"cannot rewrite {cfg.fmt} input as {fmt} in place (the rest of the file "
                                       "would be lost)", hint=f"write the {fmt} version elsewhere with --out FILE")
    target = args.path if args.in_place else args.out
    payload = result.to_dict()
    if not result.ok:
        if args.json:
            emit("apply", payload, caps={"findings": MAX_ITEMS})
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
    edit_refused = None
    if fmt == cfg.fmt:
        # the user's file keeps every byte but the graph settings (launcher, comments, code, order)
        try:
            new_text, notes = edit_text(original, fmt, changes, rendered.parts, result.era, cfg.source)
            result.notes.extend(notes)
        except InputError as exc:
            if target is not None or to_stdout:
                raise
            edit_refused, new_text = str(exc), overrides  # nothing is written: show the overrides
            result.notes.append(f"not editable in place: {edit_refused}")
    elif target is not None:
        new_text = render(apply_changes(cfg, changes), fmt, result.era)
        check_reads_back(new_text, fmt, str(target))
    else:
        new_text = overrides
    if target is not None or to_stdout:
        new_text = bom + new_text if fmt == cfg.fmt else new_text
    diff = unified_diff(original, new_text.removeprefix(bom), Path(cfg.source).name) if fmt == cfg.fmt and not edit_refused else ""
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
        emit("apply", payload, caps={"findings": MAX_ITEMS, "diff": MAX_TEXT, "overrides": MAX_TEXT})
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


def _read(args: argparse.Namespace):
    """(text, BOM, config) of PATH, read once and bounded (stdin too): the editor works on the
    very text the config was read from. A file apply could not write back in its own encoding
    (UTF-16) is refused for --in-place."""
    from skill_tools.config.readers import read_text
    from skill_tools.input_file import decode, encoding_of, read_bytes

    source = "<stdin>" if args.path == "-" else args.path
    if args.path != "-":
        refuse_non_path(args.path, "apply")
    data = read_bytes(args.path)
    text = decode(data, source)
    encoding = encoding_of(data)
    if args.in_place and encoding not in ("utf-8", "utf-8-sig"):
        raise InputError("--in-place", f"{source} is {encoding.upper()} text; apply writes UTF-8 and would change "
                                       "every byte", hint="convert it to UTF-8 first, or write the result with --out FILE")
    fmt = args.input_format
    if fmt is None and args.path != "-":
        from skill_tools.config.readers import format_from_suffix

        fmt = format_from_suffix(Path(args.path).suffix)
    return text, "\ufeff" if encoding == "utf-8-sig" else "", read_text(text, fmt=fmt, source=source)
