"""Rendering of inference results: the Markdown table, the PNG plot and the files beside them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from skill_tools.config.era import INFERENCE_SCOPES
from skill_tools.harness.inference import parity as P
from skill_tools.harness.inference.results import variant_label
from skill_tools.output_file import portable_paths, scrub_site_paths
from skill_tools.numbers import fmt_ci


def _fmt_ci(d: dict[str, float] | None, unit: str = "×") -> str:
    if not d:
        return "—"
    return fmt_ci(d["point"], d["ci95_low"], d["ci95_high"], unit=unit)


def render_markdown(result: dict[str, Any]) -> str:
    env, wl = result["env"], result["workload"]
    lines = [
        f"# Inference CUDA graphs: decode A/B ({result['date']})",
        "",
        f"GPU {env.get('gpu')} · driver {env.get('driver')} · torch {env.get('torch')} · "
        f"megatron-core {env.get('megatron_core')} · TE {env.get('transformer_engine')} · CUDA {env.get('cuda')}",
        "",
        f"Workload `{wl.get('name')}`: {wl.get('num_layers')} layers, hidden {wl.get('hidden_size')}, "
        f"{wl.get('num_attention_heads')} heads, vocab {wl.get('vocab_size')}, bf16, prompt {wl.get('prompt_len')} "
        f"tokens + {wl.get('decode_tokens')} greedy decode tokens, {wl.get('trials')} timed generations per batch "
        f"size after {wl.get('warmup_generations')} warm-up; attention: {wl.get('attention')}; MCore dynamic "
        f"engine, decode-only graphs (`num_cuda_graphs={wl.get('num_cuda_graphs')}`).",
        "",
        "| scope | batch | decode step ms (median [95% CI]) | tokens/s | step speedup vs eager | "
        "forward speedup | graphs | capture s | replayed | tokens = eager |",
        "|---|---:|---|---:|---|---|---:|---:|---:|---|",
    ]
    def order(v: dict[str, Any]) -> tuple[int, int, bool]:
        return v["batch_size"], INFERENCE_SCOPES.index(v["inference_scope"]), variant_label(v) != "none"

    for v in sorted(result["variants"], key=order):
        d = v["decode_step_ms"]
        cap = f"{v['capture_s']:.2f}" if isinstance(v.get("capture_s"), (int, float)) else "—"
        match = "—" if v.get("tokens_match_eager") is None else P.describe(v.get("first_mismatch"))
        if "tokens_match_same_shape_eager" in v:
            match += "; same shape: " + P.describe(v.get("first_mismatch_same_shape"))
        lines.append(
            f"| {variant_label(v)} | {v['batch_size']} | {d['median']:.3f} [{d['ci95_low']:.3f}, {d['ci95_high']:.3f}] "
            f"| {v['tokens_per_s']:.0f} | {_fmt_ci(v.get('speedup_vs_eager'))} | "
            f"{_fmt_ci(v.get('forward_speedup_vs_eager'))} | {v['graphs_count']} | {cap} | "
            f"{v['decode_steps_graph_replayed']}/{v['decode_steps']} | {match} |")
    lines += ["", "Step = one `DynamicInferenceEngine.step_modern()` call, wall clock with a CUDA sync on "
              "each side (includes the engine's host-side scheduling and bookkeeping); forward = CUDA-event "
              "time of the model forward inside that step. Speedup = eager median / graphed median, "
              "bootstrap 95% CI."]
    if any(variant_label(v) != v["inference_scope"] for v in result["variants"]):
        parity = result.get("all_graphed_tokens_match_same_shape_eager")
        lines += ["", "`none (graph shapes)` is eager with every decode step padded to the bucket a graph "
                  "would replay (same kernels and shapes, no replay); `same shape` compares the graphed "
                  "tokens with it. Every graphed variant matches it: "
                  + {True: "yes.", False: "NO.", None: "not measured."}[parity]]
    bi = result.get("all_graphed_tokens_match_batch_invariant_eager")
    if bi is not None:
        lines += ["", "`[batch-invariant]` rows ran under megatron-core's `set_batch_invariant_mode` (fixed-"
                  "reduction GEMM/norm kernels; speed not representative) and are compared with eager at natural "
                  "shapes, also batch-invariant. Every graphed variant matches it: " + ("yes." if bi else "NO.")]
    for key, eb in (result.get("expert_bias") or {}).items():
        after = eb.get("after_run") or []
        lines += ["", f"Expert bias ({key}): {len(eb['restored'])} fp32 router buffers restored in place before "
                  "capture; after the run " + ("all at their captured address and dtype."
                  if all(a["same_address"] and a["dtype"] == "float32" for a in after) else f"CHANGED: {after}")]
    for scope, fo in (result.get("speedup_falloff") or {}).items():
        lines += ["", f"Fall-off, {scope} scope: {fo['first_speedup']:.2f}× at batch {fo['first_batch']} "
                  f"(peak {fo['peak_speedup']:.2f}×); below half of that from batch "
                  f"{fo['below_half_at'] or 'none measured'}; below 2× from batch {fo['below_2x_at'] or 'none measured'}."]
    failed = [f for f in result.get("failures", [])]
    if failed:
        lines += ["", "Failed variants:"] + [f"- {f['scope']}: {f['error_class']}: {f['evidence']}" for f in failed]
    sens = {k: v for k, v in (result.get("batch_shape_sensitivity") or {}).items() if v}
    if sens:
        lines += ["", "Greedy tokens that change with the batch a request runs in (same prompt, same scope; "
                  "numerics depend on the padded batch shape):"]
        for scope, diffs in sens.items():
            lines.append(f"- {scope}: " + "; ".join(
                f"request {d['request']} at batch {d['batch_size']} vs batch {d['vs_batch_size']} from token "
                f"{d['position']}" for d in diffs[:6]) + (" …" if len(diffs) > 6 else ""))
    for note in result.get("notes", []):
        lines += ["", f"Note: {note}"]
    return "\n".join(lines) + "\n"


def render_plot(result: dict[str, Any], path: Path) -> bool:
    """Speedup vs batch size per scope; False when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for key, ax, title in (("speedup_vs_eager", axes[0], "decode step (engine, wall clock)"),
                           ("forward_speedup_vs_eager", axes[1], "model forward (CUDA events)")):
        for scope in INFERENCE_SCOPES[1:]:
            pts = sorted((v["batch_size"], v[key]) for v in result["variants"]
                         if v["inference_scope"] == scope and v.get(key))
            if not pts:
                continue
            xs = [p[0] for p in pts]
            ys = [p[1]["point"] for p in pts]
            err = [[y - p[1]["ci95_low"] for y, p in zip(ys, pts)], [p[1]["ci95_high"] - y for y, p in zip(ys, pts)]]
            ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=f"{scope} scope")
        ax.axhline(1.0, color="grey", lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("batch size (concurrent requests)")
        ax.set_ylabel("speedup vs eager (×)")
        ax.set_title(title)
        ax.legend()
    fig.suptitle(f"Inference CUDA graphs, {result['env'].get('gpu')}, {result['workload'].get('name')}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def gpu_slug(name: str | None) -> str:
    m = re.search(r"(H100|H200|H20|A100|B200|GB200|L40S?|A10G?|L4)", name or "", re.I)
    return m.group(1).lower() if m else "gpu"


def write_outputs(result: dict[str, Any], out_dir: Path, stem: str | None = None) -> dict[str, str]:
    out_dir.mkdir(parents=True, exist_ok=True)
    name = result["workload"].get("name", "tiny-gpt")
    stem = stem or f"{result['date']}-inference-{'' if name == 'tiny-gpt' else name + '-'}{gpu_slug(result['env'].get('gpu'))}"
    paths = {"json": out_dir / f"{stem}.json", "md": out_dir / f"{stem}.md", "png": out_dir / f"{stem}.png"}
    if not render_plot(result, paths["png"]):
        result["notes"].append("matplotlib is not installed here: no plot was written")
        paths.pop("png")
    result["artifacts"] = {k: str(p) for k, p in paths.items()}
    paths["md"].write_text(render_markdown(result))
    doc = {**result, "failures": [portable_failure(f, out_dir) for f in result.get("failures", [])]}
    paths["json"].write_text(json.dumps(portable_paths(doc, out_dir), indent=1, default=str) + "\n")
    return {k: str(p) for k, p in paths.items()}


# --------------------------------------------------------------------------------------------


def portable_failure(failure: dict[str, Any], out_dir: Path) -> dict[str, Any]:
    """A failure record with its log path relative to the results folder and install folders of
    packages in its evidence replaced (results files name no machine)."""
    out = portable_paths(failure, out_dir)
    for key in ("evidence", "tail"):
        if isinstance(out.get(key), str):
            out[key] = scrub_site_paths(out[key])
    return out
