"""What a measured plan says: one decision line, memory against the GPU, and the headroom.

Read from a bench results document (``variants[]`` with ``speedup_vs_eager``, ``memory``,
``kernel_ms_per_step`` and, engine megatron-lm, ``headroom``) and the plan that produced it.
"""

from __future__ import annotations

from typing import Any

from skill_tools.plan.record import Plan

#: A variant counts as faster only when its whole 95% CI is above this speedup.
FASTER = 1.0


def _ok(v: dict[str, Any]) -> bool:
    return not v.get("error_class") and bool(v.get("speedup_vs_eager"))


def decision(doc: dict[str, Any]) -> str:
    """``use te:attn+mlp: 1.48x [1.41, 1.55], +0.9 GB reserved`` or ``leave graphs off: ...``."""
    variants = doc.get("variants") or []
    eager = next((v for v in variants if v.get("impl") in (None, "none") and not v.get("optimizer_graph")), None)
    graphed = [v for v in variants if v is not eager and _ok(v)]
    winners = [v for v in graphed if v["speedup_vs_eager"]["ci95_low"] > FASTER]
    failed = [v["name"] for v in variants if v.get("error_class")]
    tail = f" (failed: {', '.join(failed)})" if failed else ""
    if not winners:
        best = max(graphed, key=lambda v: v["speedup_vs_eager"]["point"], default=None)
        if best is None:
            return "leave graphs off: no graph variant ran" + tail
        s = best["speedup_vs_eager"]
        return (f"leave graphs off: no variant beats eager's CI (best {best['name']} {s['point']:.2f}x "
                f"[{s['ci95_low']:.2f}, {s['ci95_high']:.2f}])" + tail)
    best = max(winners, key=lambda v: v["speedup_vs_eager"]["ci95_low"])
    s = best["speedup_vs_eager"]
    extra = ""
    mem_e, mem_b = (eager or {}).get("memory") or {}, best.get("memory") or {}
    if mem_e.get("max_reserved_mb") and mem_b.get("max_reserved_mb"):
        extra = f", {(mem_b['max_reserved_mb'] - mem_e['max_reserved_mb']) / 1024:+.1f} GB reserved"
    if best.get("loss_ok") is False:
        extra += (f"; loss differs from eager by up to {best['loss_max_abs_delta']:.2g}: check it against two eager "
                  "runs before adopting (dropless MoE on one GPU is not bitwise reproducible run to run)")
    return f"use {best['name']}: {s['point']:.2f}x [{s['ci95_low']:.2f}, {s['ci95_high']:.2f}]{extra}" + tail


def memory_lines(doc: dict[str, Any], plan: Plan) -> list[str]:
    """Peak memory per variant against the GPU, and the full layer count projected from it."""
    out = []
    est = (plan.memory or {}).get("total_gb")
    full = ((plan.projection or {}).get("all_layers_here") or {}).get("total_gb")
    for v in doc.get("variants") or []:
        mem = v.get("memory") or {}
        if not mem.get("max_allocated_mb"):
            continue
        alloc, res = mem["max_allocated_mb"] / 1024, mem.get("max_reserved_mb", 0) / 1024
        line = (f"{v['name']}: {alloc:.1f} GB allocated, {res:.1f} GB reserved of {plan.capacity_gb:.0f} GB "
                f"({plan.run_shape.num_layers} layers)")
        if est and full:
            line += (f"; all {plan.shape.num_layers} layers projected {full * alloc / est:.0f} GB allocated "
                     f"(the estimate scaled by measured/estimated {alloc / est:.2f})")
        out.append(line)
    return out


def headroom_lines(doc: dict[str, Any]) -> list[str]:
    """Per variant: kernel time vs step time, and where the host time of the step goes."""
    from skill_tools.harness.engines.megatron_lm.headroom import ORDER, REMEDIES

    out = []
    for v in doc.get("variants") or []:
        step = (v.get("step_ms") or {}).get("median")
        kernel = v.get("kernel_ms_per_step")
        if not step or not kernel:
            continue
        out.append(f"{v['name']}: step {step:.2f} ms, kernels {kernel:.2f} ms ({100 * kernel / step:.0f}% GPU-busy, "
                   f"{step / kernel:.2f}x the kernel floor)")
        hr = v.get("headroom") or {}
        host = hr.get("host_ms_per_step") or {}
        syncs = hr.get("sync_ms_per_step") or {}
        for name in ORDER:
            if name in host and name not in ("iteration", "train_step"):
                sync = f", {syncs[name]:.2f} ms blocked in syncs" if syncs.get(name) else ""
                out.append(f"  {name:26s} {host[name]:8.2f} ms host (incl. waits for the GPU){sync}  <- "
                           f"{REMEDIES.get(name, '')}")
    return out
