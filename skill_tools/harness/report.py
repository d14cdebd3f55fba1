"""Markdown table and PNG plot of a results file.

Rendered from the results JSON alone, so a plot can be drawn on any machine after the
numbers come back from the GPU host. matplotlib is optional: without it the PNG is skipped
with a clear message, the table is still written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skill_tools.harness.results import write_results
from skill_tools.numbers import fmt, fmt_ci


def _fmt(x: float | None, digits: int = 2) -> str:
    return fmt(x, digits, missing="–")


def _speedup(v: dict[str, Any]) -> str:
    s = v.get("speedup_vs_eager")
    if not s:
        return "–"
    return fmt_ci(s["point"], s["ci95_low"], s["ci95_high"], unit="×")


def _subject(wl: dict[str, Any]) -> str:
    """What ran: the workload and the engine's loop (results without an engine: the proxy loop)."""
    from skill_tools.harness.engines import REGISTRY

    engine = REGISTRY.get(wl.get("engine") or "proxy")
    return f"{wl.get('workload', '?')} {engine.subject if engine else 'proxy'}"


def _memory(mem: dict[str, Any]) -> str:
    if not mem:
        return "–"
    if "max_allocated_before_capture_mb" in mem:  # proxy engine: around the capture
        return f"{mem.get('max_allocated_before_capture_mb', 0):.0f}→{mem.get('max_allocated_after_capture_mb', 0):.0f}"
    if "max_allocated_mb" in mem:  # engine megatron-lm: peak over the whole run
        return f"peak {mem['max_allocated_mb']:.0f}"
    return "–"


def markdown(doc: dict[str, Any]) -> str:
    env = doc.get("env", {})
    wl = doc.get("workload", {})
    streams = sorted({v["capture_stream"] for v in doc.get("variants", []) if v.get("capture_stream")})
    lines = [
        f"# {doc.get('kind', 'training').capitalize()} benchmark: {_subject(wl)}, "
        f"size {wl.get('size', '?')} ({doc.get('date')})",
        "",
        f"GPU {env.get('gpu')} · driver {env.get('driver')} · torch {env.get('torch')} · CUDA {env.get('cuda')} · "
        f"megatron-core {env.get('megatron_core')} · Transformer Engine {env.get('transformer_engine')}",
        "",
        f"{wl.get('steps', '?')} measured steps × {wl.get('trials', '?')} interleaved trials per variant; "
        f"warmup and capture excluded; median with bootstrap 95% CI"
        + (f"; capture stream: {', '.join(streams)}." if streams else "."),
        "",
        "| variant | captured | replayed | graphs | step ms (median [95% CI]) | speedup vs eager [95% CI] "
        "| max abs Δloss | kernel ms/step | GPU busy | max alloc MB | error |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for v in doc.get("variants", []):
        sm = v.get("step_ms")
        step = f"{sm['median']:.3f} [{sm['ci95_low']:.3f}, {sm['ci95_high']:.3f}]" if sm else "–"
        memtxt = _memory(v.get("memory") or {})
        graphed = v.get("impl") != "none" or v.get("optimizer_graph")
        delta = v.get("loss_max_abs_delta")
        busy = v.get("gpu_busy_fraction")
        busy_txt = "–" if busy is None else f"{100 * busy:.0f}%"
        lines.append(
            f"| {v['name']} | {'yes' if v.get('captured') else ('–' if not graphed else 'no')} "
            f"| {'yes' if v.get('replayed') else ('–' if not graphed else 'no')} | {v.get('graphs_count', 0)} "
            f"| {step} | {_speedup(v)} | {'–' if delta is None else f'{delta:.2e}'} "
            f"| {_fmt(v.get('kernel_ms_per_step'), 3)} "
            f"| {busy_txt} "
            f"| {memtxt} | {v.get('error_class') or ''} |"
        )
    pairs = doc.get("loss_pairs") or []
    if len(pairs) > 1:
        lines += ["", "max abs Δloss between every two variants (same data, same seed, every step):", "",
                  "| variant | variant | max abs Δloss |", "|---|---|---|"]
        lines += [f"| {p['a']} | {p['b']} | {p['max_abs_delta']:.2e} |" for p in pairs]
    failures = [v for v in doc.get("variants", []) if v.get("error_class")]
    if failures:
        lines += ["", "Failures:"]
        for v in failures:
            lines.append(f"- **{v['name']}**: `{v['error_class']}` — {v.get('evidence') or ''}")
            if v.get("graph_flags"):
                lines.append(f"  - graph flags: `{' '.join(v['graph_flags'])}`")
            if v.get("exception") and v.get("exception") not in (v.get("evidence") or ""):
                lines.append(f"  - worker exception ({v.get('failed_phase') or '?'} phase): `{v['exception'][:400]}`")
    for note in doc.get("notes", []):
        lines.append(f"- note: {note}")
    return "\n".join(lines) + "\n"


def plot(doc: dict[str, Any], path: Path) -> Path | None:
    """Box plot of per-step times (eager vs each variant). None, with a message, without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        import sys

        print("skill-tools: matplotlib is not installed; skipped the step-time plot "
              "(pip install matplotlib, then: skill-tools bench --render RESULTS.json)", file=sys.stderr)
        return None
    variants = [v for v in doc.get("variants", []) if v.get("raw_step_ms")]
    if not variants:
        return None
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(variants)), 4.2))
    data = [v["raw_step_ms"] for v in variants]
    ax.boxplot(data, showfliers=True)
    ax.set_xticks(range(1, len(variants) + 1))
    ax.set_xticklabels([v["name"] for v in variants], rotation=20, ha="right", fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("step time (ms, log scale)")
    for i, v in enumerate(variants, start=1):
        if v.get("kernel_ms_per_step"):
            ax.plot([i - 0.35, i + 0.35], [v["kernel_ms_per_step"]] * 2, color="tab:red", lw=1, ls="--")
    env, wl = doc.get("env", {}), doc.get("workload", {})
    ax.set_title(f"{_subject(wl)} ({wl.get('size')}) on {env.get('gpu')}: step times; "
                 f"dashed = kernel time/step", fontsize=9)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def write_outputs(doc: dict[str, Any], out_dir: Path, stem: str) -> dict[str, Path | None]:
    """<stem>.json, <stem>.md and <stem>.png (when matplotlib exists) under ``out_dir``."""
    out_dir = Path(out_dir)
    json_path = write_results(doc, out_dir / f"{stem}.json")
    md_path = out_dir / f"{stem}.md"
    from skill_tools.output_file import write_text

    write_text(md_path, markdown(doc), flag="--out")
    png = plot(doc, out_dir / f"{stem}.png")
    return {"json": json_path, "md": md_path, "png": png}
