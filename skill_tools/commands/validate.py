"""`skill-tools validate PATH|- [--mcore-version] [--env K=V] [--oracle] [--json]`.

Exit 0 when no finding is an error, 1 when one is, 2 for unreadable input. The oracles
(megatron-core's real TransformerConfig; for a Bridge-shaped input Megatron Bridge's own
ConfigContainer.validate(), where Bridge can be imported) run only with ``--oracle`` so a plain
validate stays well under half a second.
"""

from __future__ import annotations

import argparse

from skill_tools.commands._common import add_config_arguments, config_source, env_from
from skill_tools.errors import EXIT_FINDINGS, EXIT_OK, require_extra
from skill_tools.json_output import MAX_ITEMS, emit


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_arguments(parser)
    parser.add_argument("--oracle", action="store_true",
                        help="also build megatron-core's TransformerConfig and, for a Bridge-shaped input, run Megatron "
                             "Bridge's ConfigContainer.validate(), and report their verdicts (slow: imports torch)")


def run(args: argparse.Namespace) -> int:
    from skill_tools.api import validate

    if args.oracle:
        require_extra("validate --oracle", "oracle", "torch", "megatron.core")
    report = validate(config_source(args), args.mcore_version, env_from(args), oracle=args.oracle,
                      fmt=args.input_format, te_version=args.te_version)
    if args.json:
        emit("validate", report.to_dict(), caps={"findings": MAX_ITEMS})
    else:
        print(f"{report.source}: megatron-core {report.era.mcore_version} ({report.era.label})")
        for f in report.findings:
            print(f"  {f}")
            if f.fix:
                print("      fix: " + ", ".join(f"{k}={v!r}" for k, v in f.fix.items()))
            print(f"      source: {f.source}" + (f" (pain point {f.pain_point})" if f.pain_point else ""))
            if f.docs:
                print(f"      docs: {f.docs}")
        if report.oracle.get("ran"):
            o = report.oracle
            verdict = "accepts" if o["ok"] else f"rejects: {o['error_type']}: {o['error']}"
            who = ("Megatron-LM parse_args/validate_args/core_transformer_config_from_args"
                   if o.get("path") == "megatron_lm_args" else "TransformerConfig")
            if o.get("agrees") is None:
                print(f"  oracle: {who} (megatron-core {o['mcore_version']}) could not judge the graph "
                      f"settings: {o.get('could_not_judge')}")
            else:
                print(f"  oracle: {who} (megatron-core {o['mcore_version']}) {verdict}; "
                      f"{'agrees' if o.get('agrees') else 'DISAGREES'} with the catalog")
        bridge = report.oracle.get("bridge")
        if bridge and bridge.get("ran") and bridge.get("agrees") is None:
            print(f"  oracle: Megatron Bridge {bridge['bridge_version']} could not judge the graph settings: "
                  f"{bridge.get('could_not_judge')}")
        elif bridge and bridge.get("ran"):
            verdict = "accepts" if bridge["ok"] else f"rejects ({bridge['stage']}): {bridge['error_type']}: {bridge['error']}"
            print(f"  oracle: Megatron Bridge {bridge['bridge_version']} ConfigContainer.validate() + provider asserts "
                  f"{verdict}; {'agrees' if bridge.get('agrees') else 'DISAGREES'} with the catalog")
        elif bridge:
            print(f"  oracle: Megatron Bridge skipped: {bridge['reason']}")
        errors = sum(f.severity == "error" for f in report.findings)
        warnings = sum(f.severity == "warning" for f in report.findings)
        print(("clean" if not report.findings else f"{errors} error(s), {warnings} warning(s)"))
    return EXIT_OK if report.ok else EXIT_FINDINGS
