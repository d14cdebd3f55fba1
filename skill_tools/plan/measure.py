"""A plan as a training bench: the engines run the user's fitted layer shape, one variant per candidate.

The plan's run shape and layout travel to the engines in ``VariantSpec.model``; engine
megatron-lm renders Megatron-LM flags from them (:func:`skill_tools.config.shape_render
.megatron_lm_shape_flags`), engine bridge Hydra overrides. What the validator rejects stays out
(said in the notes) unless ``--run-rejected``.
"""

from __future__ import annotations

import argparse
import re
from typing import Any

from skill_tools.plan.record import Plan


def model_record(plan: Plan) -> dict[str, Any]:
    """What ``VariantSpec.model`` carries: the run shape and layout, the config, the plan's changes."""
    shape = {k: v for k, v in plan.run_shape.to_dict().items() if k != "origin"}
    layout = {k: v for k, v in plan.run_layout.to_dict().items() if k != "origin"}
    stem = re.sub(r"[^A-Za-z0-9]+", "-", plan.recipe or plan.source.rsplit("/", 1)[-1].rsplit(".", 1)[0]).strip("-")
    return {"shape": shape, "layout": layout, "source": plan.source.rsplit("/", 1)[-1], "name": stem.lower(),
            "plan": {"schema_version": plan.schema_version, "changed": [c.to_dict() for c in plan.changes],
                     "memory_estimate": plan.memory, "projection": plan.projection}}


def workload_of(plan: Plan) -> str:
    s = plan.run_shape
    if not s.is_moe:
        return "dense"
    return "moe_droppad" if s.moe_expert_capacity_factor is not None and s.moe_pad_expert_input_to_capacity else "moe"


def bench_request(args: argparse.Namespace, plan: Plan) -> tuple[Any, list[str]]:
    """(the harness's BenchRequest for the plan, notes on candidates left out)."""
    from skill_tools.harness.bench import BenchRequest

    notes = []
    planned = []
    for c in plan.candidates:
        if c.impl == "none":
            continue
        if c.rejected_by and not args.run_rejected:
            notes.append(f"{c.name} left out: the validator rejects it for this config ({', '.join(c.rejected_by)}); "
                         "--run-rejected runs it anyway")
            continue
        planned.append((c.name, c.impl, tuple(c.modules)))
    lay = plan.run_layout
    req = BenchRequest(
        engine=args.engine, workload=workload_of(plan), steps=args.steps, warmup=args.warmup,
        trials=2 if args.trials is None else args.trials, nproc=lay.nproc or 1, tp=lay.tp, pp=lay.pp, ep=lay.ep,
        microbatches=args.microbatches, run_rejected=args.run_rejected, mcore_version=args.mcore_version,
        megatron_lm=args.megatron_lm, model=model_record(plan), planned=tuple(planned))
    return req, notes


def run(args: argparse.Namespace, plan: Plan) -> tuple[dict[str, Any] | None, Any]:
    """(the results document, or None for ``--dry-run``; the checked harness plan)."""
    from skill_tools.harness import bench

    req, notes = bench_request(args, plan)
    checked = bench.plan(req)
    checked.notes[:0] = [c.line() for c in plan.changes] + notes + plan.notes
    if args.dry_run:
        return None, checked
    doc = bench.run(checked, out_dir=args.out, timeout_s=300 if args.timeout is None else args.timeout,
                    progress=not args.no_progress)
    doc["plan"] = plan.to_dict()
    return doc, checked
