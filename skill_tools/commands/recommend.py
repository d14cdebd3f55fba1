"""`skill-tools recommend PATH [--mcore-version] [--json]`: an impl/scope for this config, why,
the next step, and the era-correct overrides (which validate clean)."""

from __future__ import annotations

import argparse

from skill_tools.commands._common import add_config_arguments, config_source, env_from
from skill_tools.errors import EXIT_FINDINGS, EXIT_OK
from skill_tools.json_output import MAX_ITEMS, emit


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_arguments(parser)
    parser.add_argument("--format", default="hydra", choices=("yaml", "python", "hydra", "run_script", "megatron_lm"),
                        help="format of the overrides shown (default: hydra)")


def run(args: argparse.Namespace) -> int:
    from skill_tools.api import recommend
    from skill_tools.config.render import render
    from skill_tools.overrides import override_values

    rec = recommend(config_source(args), args.mcore_version, env_from(args), fmt=args.input_format,
                    te_version=args.te_version)
    overrides = override_values(rec.plan.changes)
    if args.json:
        emit("recommend", {**rec.to_dict(), "rendered": render(overrides, args.format, rec.plan.era)},
             caps={"findings": MAX_ITEMS})
    else:
        scope = ",".join(rec.scope) if rec.scope else "-"
        inf = f", inference scope {rec.inference_scope}" if rec.inference_scope else ""
        print(f"recommend: impl {rec.impl}, scope {scope}{inf}  (megatron-core {rec.plan.era.mcore_version})")
        print(f"  why: {rec.reason}")
        if rec.next_step:
            print(f"  next: {rec.next_step}")
        for line in rec.evidence:
            print(f"  evidence: {line}")
        for r in rec.rejected:
            print(f"  skipped {r['impl']} {','.join(r['scope']) or '-'}: {', '.join(r['errors'])}")
        print("  overrides:")
        print("    " + render(overrides, args.format, rec.plan.era).rstrip().replace("\n", "\n    "))
        for f in rec.plan.findings:
            print(f"  {f}")
    return EXIT_OK if rec.ok else EXIT_FINDINGS
