"""``bench --config FILE --plan-cluster``: the full-size A/B as the jobs the user already runs.

One job per candidate, everything but the graph settings as in the user's own config: for a
Megatron-LM launch script its own flags (graph flags replaced by the variant's, rendered by the
same renderer ``skill-tools apply`` uses) under torchrun and Slurm ``srun``; for a Bridge recipe
``scripts/performance/run_script.py``; for a Bridge ConfigContainer YAML its Hydra overrides.
Then the same log reading for every job (``skill-tools logs eager.log VARIANT.log``).
"""

from __future__ import annotations

import shlex
from typing import Any

from skill_tools.config.era import Era
from skill_tools.config.model import CanonicalConfig
from skill_tools.config.render import render
from skill_tools.plan.candidates import Candidate
from skill_tools.plan.record import Plan

#: Megatron-LM graph flags a variant's own flags replace (with their values).
GRAPH_FLAGS = ("--cuda-graph-impl", "--cuda-graph-scope", "--cuda-graph-modules", "--enable-cuda-graph",
               "--external-cuda-graph", "--te-rng-tracker", "--no-te-rng-tracker", "--optimizer-cuda-graph")


def variant_overrides(cfg: CanonicalConfig, cand: Candidate, era: Era) -> CanonicalConfig:
    """Only the keys the variant sets on the user's config (``skill-tools apply``'s plan)."""
    from skill_tools.overrides import REMOVE, plan

    out = CanonicalConfig(source=f"variant {cand.name}")
    p = plan(cfg, cand.impl, list(cand.modules) if cand.impl == "transformer_engine" else [], era)
    for key, value in p.changes.items():
        if value is REMOVE or value is None or (key.startswith("model.cuda_graph") and value == []):
            continue
        out.set(key, value)
    return out


def world_size(plan: Plan) -> int:
    lay = plan.layout
    if lay.nproc:
        return lay.nproc
    base = lay.tp * lay.pp * lay.cp
    world = base
    while (world // lay.pp) % (lay.ep * lay.etp):
        world += base
    return world


def _user_flags(argv: list[tuple[str, int]]) -> list[str]:
    out, skip = [], False
    for tok, _ in argv:
        if tok.startswith("--"):
            skip = tok.split("=", 1)[0] in GRAPH_FLAGS
        if not skip:
            out.append(tok)
    return out


def megatron_lm_jobs(cfg: CanonicalConfig, plan: Plan, era: Era, gpus_per_node: int) -> list[dict[str, Any]]:
    world = world_size(plan)
    per_node = min(world, gpus_per_node)
    nodes = max(1, world // per_node)
    script = cfg.script or "pretrain_gpt.py"
    base = _user_flags(cfg.argv)
    jobs = []
    for cand in plan.candidates:
        flags = list(base)
        if cand.impl != "none":
            over = variant_overrides(cfg, cand, era)
            rendered = shlex.split(render(over, "megatron_lm").replace("\\\n", " ")) if over.values else []
            flags += [t for t in rendered if not (t.startswith("--") and t in base and t not in GRAPH_FLAGS)]
        log = f"logs/{cand.name.replace(':', '-').replace('+', '-')}.log"
        torchrun = ["torchrun", "--nnodes", str(nodes), "--nproc-per-node", str(per_node)] + (
            ["--rdzv-backend", "c10d", "--rdzv-endpoint", "$MASTER_ADDR:29500"] if nodes > 1 else []) + [script] + flags
        inner = (f"torchrun --nnodes {nodes} --nproc-per-node {per_node} --rdzv-backend c10d --rdzv-endpoint "
                 '"$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -1)":29500 '
                 + shlex.join([script, *flags]) + f" 2>&1 | tee {log}")
        srun = ["srun", f"--nodes={nodes}", "--ntasks-per-node=1", f"--gpus-per-node={per_node}", "bash", "-c", inner]
        jobs.append({"variant": cand.name, "flags": flags, "torchrun": torchrun, "srun": srun, "log": log,
                     "why": cand.why, "rejected_by": list(cand.rejected_by)})
    return jobs


def bridge_jobs(cfg: CanonicalConfig, plan: Plan, era: Era, gpu: str) -> list[dict[str, Any]]:
    jobs = []
    for cand in plan.candidates:
        log = f"logs/{cand.name.replace(':', '-').replace('+', '-')}.log"
        if plan.recipe:
            from skill_tools.harness.engines.bridge.command_pair import RUN_SCRIPT, graph_flags

            family = plan.recipe.split("_")[0].rstrip("0123456789") or plan.recipe
            flags = ["--cuda_graph_impl", "none"] if cand.impl == "none" else graph_flags(
                cand.impl, list(cand.modules))[0]
            cmd = ["python", RUN_SCRIPT, "-m", family, "-mr", plan.recipe, "-g", gpu, "-ng", str(world_size(plan)),
                   "-c", plan.shape.precision if plan.shape.precision != "fp8" else "fp8_cs", *flags]
        else:
            over = variant_overrides(cfg, cand, era)
            hydra = shlex.split(render(over, "hydra")) if over.values else []
            cmd = ["torchrun", "--nproc-per-node", str(min(world_size(plan), 8)), "$BRIDGE_ENTRY",
                   "--config-file", cfg.source, *hydra]
        jobs.append({"variant": cand.name, "command": cmd, "log": log, "why": cand.why,
                     "rejected_by": list(cand.rejected_by)})
    return jobs


def cluster_plan(cfg: CanonicalConfig, plan: Plan, era: Era, *, gpus_per_node: int = 8,
                 gpu: str = "h100") -> dict[str, Any]:
    lm = cfg.fmt == "megatron_lm"
    jobs = megatron_lm_jobs(cfg, plan, era, gpus_per_node) if lm else bridge_jobs(cfg, plan, era, gpu)
    logs = [j["log"] for j in jobs]
    read = [f"skill-tools logs {logs[0]} {log}" for log in logs[1:]]
    notes = ["run every job with the same nodes, data and iteration count; the graph jobs differ only in the "
             "flags after the user's own", "compare the steady-state step times after the capture iteration: "
             + "; ".join(read)]
    if not lm and not plan.recipe:
        notes.append("$BRIDGE_ENTRY: the script that calls megatron.bridge.training.pretrain.pretrain with your "
                     "ConfigContainer; the overrides are Hydra overrides (process_config_with_overrides)")
    return {"schema_version": 1, "kind": "cluster-plan", "source": cfg.source, "world_size": world_size(plan),
            "engine": "megatron-lm" if lm else "bridge", "jobs": jobs, "read_logs": read, "notes": notes}


def _join(words: list[str]) -> str:
    """shlex.join, except ``$NAME`` words stay unquoted so the shell expands them."""
    return " ".join(w if w.startswith("$") and w[1:].isidentifier() else shlex.quote(w) for w in words)


def cluster_text(doc: dict[str, Any]) -> str:
    lines = [f"# full-size A/B of {doc['source']}: {len(doc['jobs'])} job(s) on {doc['world_size']} GPUs each"]
    for job in doc["jobs"]:
        lines.append(f"# --- {job['variant']}: {job['why']}"
                     + (f" [validator rejects: {', '.join(job['rejected_by'])}]" if job["rejected_by"] else ""))
        if "srun" in job:
            lines.append(shlex.join(job["torchrun"][:-len(job["flags"]) or None]) + " \\\n    "
                         + shlex.join(job["flags"]) + f" 2>&1 | tee {job['log']}")
            lines.append("# or under Slurm:")
            lines.append(" ".join(job["srun"][:-1]) + " " + shlex.quote(job["srun"][-1]))
        else:
            lines.append(_join(job["command"]) + f" 2>&1 | tee {job['log']}")
    lines.append("# afterwards:")
    lines += doc["read_logs"]
    lines += [f"# note: {n}" for n in doc["notes"]]
    return "\n".join(lines)
