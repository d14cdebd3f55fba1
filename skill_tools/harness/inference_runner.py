"""CLI side of ``skill-tools bench --mode inference``: eager vs layer- vs block-scoped decode graphs.

Refuses bad input before any GPU work (a scope the installed megatron-core does not know, or one
the rule catalog rejects), then runs :mod:`skill_tools.harness.inference_worker` once per scope,
each in its own process (``run_isolated``), and turns the raw per-step times into statistics
(``skill_tools.stats``), a token-by-token parity verdict against eager, and a results JSON +
Markdown table + PNG plot. Cheap to import: no torch or megatron at module level.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import re
import sys
from pathlib import Path
from typing import Any, Sequence

from skill_tools.config.era import INFERENCE_SCOPES, TE_DISTRIBUTIONS, Era, installed_version, resolve_era
from skill_tools.config.model import CanonicalConfig
from skill_tools.errors import EXIT_FINDINGS, EXIT_OK, InputError, NoGpuError
from skill_tools.harness import inference_parity as P
from skill_tools.harness import inference_workloads as IW
from skill_tools.harness.results import driver_version
from skill_tools.output_file import portable_paths, scrub_site_paths
from skill_tools.stats import ratio_ci, summarize

SCHEMA_VERSION = 1
WORKER = "skill_tools.harness.inference_worker"
WORKLOADS = tuple(IW.WORKLOADS)
#: ``bench --workload`` names (shared with training mode) -> inference workloads.
WORKLOAD_ALIASES = IW.ALIASES
#: The eager control run at the graphs' padded decode shapes (worker ``--eager-graph-shapes``):
#: graphed tokens are compared with it to separate replay from shape-dependent bf16 rounding.
SAME_SHAPE_EAGER = P.SAME_SHAPE_EAGER
#: MCore's capture summary (megatron/core/inference/engines/dynamic_engine.py, core_v0.19.0).
BUILT_RE = re.compile(r"> built cuda graph\(s\) in ([0-9.]+) sec")


# --------------------------------------------------------------------------------------------
# Input checks (no GPU touched)
# --------------------------------------------------------------------------------------------


def parse_int_list(text: str | Sequence[int], source: str) -> list[int]:
    if not isinstance(text, str):
        values = list(text)
    else:
        try:
            values = [int(x) for x in text.split(",") if x.strip()]
        except ValueError:
            raise InputError(source, f"{text!r} is not a comma-separated list of integers",
                             hint="e.g. --batch-sizes 1,2,4,8") from None
    if not values or any(v < 1 for v in values):
        raise InputError(source, f"{text!r}: need one or more positive integers", hint="e.g. 1,2,4,8")
    return sorted(dict.fromkeys(values))


def parse_scopes(text: str | Sequence[str], era: Era) -> list[str]:
    """Scopes to measure, eager (``none``) first; refuses what ``era`` does not know."""
    names = [s.strip() for s in (text.split(",") if isinstance(text, str) else text) if s.strip()]
    if not era.has_inference_scope:
        raise InputError(
            "--inference-scope",
            f"megatron-core {era.mcore_version} has no inference_cuda_graph_scope (added in 0.18)",
            hint=("on 0.16–0.17 inference graphs are cuda_graph_impl='local' (per layer)"
                  + (" or cuda_graph_scope=['full_iteration_inference'] (whole block)"
                     if "full_iteration_inference" in era.module_values else "")
                  + "; upgrade to megatron-core>=0.18 to benchmark none/layer/block"),
        )
    for name in names:
        if name == "full_iteration_inference":
            raise InputError("--inference-scope", "'full_iteration_inference' is the deprecated spelling",
                             hint="use --inference-scope none,block (MCore migrates it to "
                                  "inference_cuda_graph_scope='block' with cuda_graph_impl='local')")
        if name not in INFERENCE_SCOPES:
            raise InputError("--inference-scope", f"unknown inference scope {name!r}",
                             hint=f"choose from {', '.join(INFERENCE_SCOPES)}")
    if not names:
        raise InputError("--inference-scope", "no scope given", hint="e.g. none,layer,block")
    ordered = ["none"] + [n for n in INFERENCE_SCOPES if n in names and n != "none"]
    return ordered


def scope_config(scope: str) -> CanonicalConfig:
    """The model settings one variant runs with, as the rule catalog sees them."""
    cfg = CanonicalConfig()
    cfg.set("model.cuda_graph_impl", "none" if scope == "none" else "local")
    cfg.set("model.inference_cuda_graph_scope", scope)
    return cfg


def check_rules(scopes: list[str], era: Era) -> None:
    """Refuse a variant the rule catalog flags as an error (when the rules engine is installed)."""
    try:
        from skill_tools.rules.engine import check
    except ImportError:
        return
    for scope in scopes:
        # Only the inference-scope rules judge a variant: training rules (e.g. the TE RNG tracker
        # for training graphs) do not apply to the engine, which uses the inference RNG tracker.
        errors = [f for f in check(scope_config(scope), era)
                  if f.severity == "error" and "model.inference_cuda_graph_scope" in (f.keys or ())]
        if errors:
            f = errors[0]
            fix = ", ".join(f"{k}={v!r}" for k, v in (f.fix or {}).items())
            raise InputError("--inference-scope", f"scope {scope!r}: [{f.rule}] {f.message}",
                             hint=f"fix: {fix}" if fix else None)


def require_gpu() -> None:
    import torch  # lazy: keeps the CLI cheap; only the worker imports torch at module level

    if not torch.cuda.is_available():
        raise NoGpuError("bench --mode inference needs a CUDA GPU; none is visible "
                         "(validate the options on this machine with --dry-run)")


# --------------------------------------------------------------------------------------------
# Running the variants
# --------------------------------------------------------------------------------------------


def worker_args(scope: str, batch_sizes: list[int], decode_tokens: int, trials: int, warmup: int,
                workload: str, out_json: Path) -> list[str]:
    """Worker command line of one run key (a scope, :data:`SAME_SHAPE_EAGER`, or either with the
    batch-invariant suffix of :mod:`inference_parity`)."""
    return ["--scope", P.run_scope(scope), "--batch-sizes", ",".join(map(str, batch_sizes)),
            "--decode-tokens", str(decode_tokens), "--trials", str(trials), "--warmup", str(warmup),
            "--workload", workload, "--out", str(out_json)] + P.worker_flags(scope)


def run_variant(scope: str, argv: list[str], log_path: Path, timeout_s: float) -> dict[str, Any]:
    from skill_tools.harness.isolation import run_isolated

    res = run_isolated(WORKER, argv, nproc=1, timeout_s=timeout_s, log_path=log_path)
    return {"scope": scope, "ok": res.ok, "returncode": res.returncode, "timed_out": res.timed_out,
            "error_class": res.error_class, "evidence": res.evidence, "log_path": str(log_path),
            "tail": res.tail if not res.ok else None}


def capture_from_log(log_path: Path) -> float | None:
    """Capture seconds from MCore's own ``> built cuda graph(s) in X sec`` line."""
    try:
        for line in Path(log_path).read_text(errors="replace").splitlines():
            m = BUILT_RE.search(line)
            if m:
                return float(m.group(1))
    except OSError:
        pass
    return None


# --------------------------------------------------------------------------------------------
# Statistics and parity
# --------------------------------------------------------------------------------------------


def decode_samples(batch: dict[str, Any]) -> tuple[list[float], list[float], int, int]:
    """(wall ms of decode steps, forward ms of decode steps, decode steps, graph-replayed steps)."""
    wall, fwd, n, graphed = [], [], 0, 0
    for steps in batch["trials"]:
        for s in steps:
            if not s.get("decode"):
                continue
            n += 1
            graphed += bool(s.get("graph"))
            wall.append(float(s["ms"]))
            if s.get("forward_ms") is not None:
                fwd.append(float(s["forward_ms"]))
    return wall, fwd, n, graphed


def prefill_ms(batch: dict[str, Any]) -> list[float]:
    return [float(s["ms"]) for steps in batch["trials"] for s in steps if not s.get("decode")]


first_mismatch = P.first_mismatch


def build_variants(raw: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per (variant, batch size), with speedups and parity against eager.

    ``raw`` is keyed by run key: scopes, :data:`SAME_SHAPE_EAGER` for the eager control at the
    graph buckets' shapes, and batch-invariant runs (``<key>-batch-invariant``), which are compared
    with the batch-invariant eager run at natural shapes (:func:`inference_parity.baseline_key`).
    """
    def by_batch(key: str) -> dict[int, dict[str, Any]]:
        return {b["batch_size"]: b for b in raw.get(key, {}).get("batches", [])}

    same_shape = by_batch(SAME_SHAPE_EAGER)
    variants = []
    for key, data in raw.items():
        scope = P.run_scope(key)
        eager = by_batch(P.baseline_key(key))
        cap = data.get("capture", {})
        for b in data.get("batches", []):
            bs = b["batch_size"]
            wall, fwd, n_dec, n_graph = decode_samples(b)
            if not wall:
                continue
            summ = summarize(wall)
            prefill = prefill_ms(b)
            entry: dict[str, Any] = {
                "name": f"{key}-b{bs}",
                "inference_scope": scope,
                "batch_invariant": P.is_batch_invariant(key),
                "decode_padding": data.get("workload", {}).get("decode_padding")
                or ("token rounder" if scope == "none" else "graph buckets"),
                "batch_size": bs,
                "captured": bool(cap.get("captured")),
                "graphs_count": int(cap.get("graphs", {}).get("graphs", 0)),
                "graph_batch_shapes": len(cap.get("graph_batch_shapes") or []),
                "capture_s": cap.get("capture_s"),
                "capture_s_from_log": cap.get("capture_s_from_log"),
                "decode_steps": n_dec,
                "decode_steps_graph_replayed": n_graph,
                "decode_step_ms": summ.to_dict(),
                "decode_forward_ms": summarize(fwd).to_dict() if fwd else None,
                "prefill_step_ms": summarize(prefill).to_dict() if prefill else None,
                "tokens_per_s": bs * 1000.0 / summ.median,
                "tokens_stable_across_trials": b.get("tokens_stable_across_trials"),
                "memory": {**data.get("memory", {}), "capture_stats": cap.get("capture_stats")},
                "raw_decode_step_ms": [round(x, 4) for x in wall],
                "raw_decode_forward_ms": [round(x, 4) for x in fwd],
            }
            base = eager.get(bs)
            if base is not None:
                bwall, bfwd, _, _ = decode_samples(base)
                p, lo, hi = ratio_ci(bwall, wall)
                entry["speedup_vs_eager"] = {"point": p, "ci95_low": lo, "ci95_high": hi}
                if fwd and bfwd:
                    p, lo, hi = ratio_ci(bfwd, fwd)
                    entry["forward_speedup_vs_eager"] = {"point": p, "ci95_low": lo, "ci95_high": hi}
                entry["tokens_match_eager"], entry["first_mismatch"], entry["max_abs_logprob_delta"] = \
                    P.compare(base, b)
            else:
                entry["speedup_vs_eager"] = None
                entry["tokens_match_eager"] = None
                entry["first_mismatch"] = None
            control = same_shape.get(bs)
            if control is not None and scope != "none" and not P.is_batch_invariant(key):
                entry["tokens_match_same_shape_eager"], entry["first_mismatch_same_shape"], _ = P.compare(control, b)
            variants.append(entry)
    return variants


def is_same_shape_control(v: dict[str, Any]) -> bool:
    """Whether a variant entry is the eager control padded to the graph buckets."""
    return v.get("inference_scope") == "none" and v.get("decode_padding") == "graph buckets"


def variant_label(v: dict[str, Any]) -> str:
    """The scope column of a table row: eager at graph shapes is told apart from eager."""
    label = "none (graph shapes)" if is_same_shape_control(v) else v["inference_scope"]
    return label + (" [batch-invariant]" if v.get("batch_invariant") else "")


def same_shape_parity(variants: list[dict[str, Any]]) -> bool | None:
    """Whether every graphed variant's tokens equal eager run at the same padded shapes; None
    when the control was not run."""
    checked = [v["tokens_match_same_shape_eager"] for v in variants if "tokens_match_same_shape_eager" in v]
    return all(checked) if checked else None


def batch_invariant_parity(variants: list[dict[str, Any]]) -> bool | None:
    """Whether every graphed run under ``batch_invariant_mode`` produced eager's tokens at natural
    shapes (eager also batch-invariant); None when no such pair was run."""
    checked = [v["tokens_match_eager"] for v in variants if v.get("batch_invariant")
               and v["inference_scope"] != "none" and v.get("tokens_match_eager") is not None]
    return all(checked) if checked else None


def shape_sensitivity(raw: dict[str, dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Per scope: requests whose greedy tokens change with the batch size they ran in.

    Request i has the same prompt at every batch size, so within one scope its tokens should not
    depend on the batch. When they do, the kernels' numerics depend on the padded batch shape
    (eager pads decode steps to ``TOKEN_ROUNDER`` tokens, graphs run at their bucket size), which
    explains a graph-vs-eager mismatch that is not a replay bug.
    """
    out: dict[str, list[dict[str, Any]]] = {}
    for scope, data in raw.items():
        first_seen: dict[int, tuple[int, list[int]]] = {}
        diffs = []
        for b in sorted(data.get("batches", []), key=lambda b: b["batch_size"]):
            for r, toks in enumerate(b["tokens"]):
                if r not in first_seen:
                    first_seen[r] = (b["batch_size"], toks)
                    continue
                ref_bs, ref = first_seen[r]
                mm = first_mismatch([ref], [toks])
                if mm:
                    diffs.append({"request": r, "batch_size": b["batch_size"], "vs_batch_size": ref_bs,
                                  "position": mm["position"]})
        out[scope] = diffs
    return out


def falloff(variants: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per graphed scope: the step speedup at the smallest batch, and the smallest batch sizes
    where it falls below half of that and below 2×."""
    out: dict[str, dict[str, Any]] = {}
    for v in sorted(variants, key=lambda v: v["batch_size"]):
        scope, sp = v["inference_scope"], v.get("speedup_vs_eager")
        if scope == "none" or not sp or v.get("batch_invariant"):
            continue
        entry = out.setdefault(scope, {"first_batch": v["batch_size"], "first_speedup": sp["point"],
                                       "peak_speedup": sp["point"], "below_half_at": None, "below_2x_at": None})
        entry["peak_speedup"] = max(entry["peak_speedup"], sp["point"])
        if entry["below_half_at"] is None and sp["point"] < entry["first_speedup"] / 2:
            entry["below_half_at"] = v["batch_size"]
        if entry["below_2x_at"] is None and sp["point"] < 2.0:
            entry["below_2x_at"] = v["batch_size"]
    return out


def rebuild(log_dir: Path, workload: str, env: dict[str, Any], date: str) -> dict[str, Any]:
    """Re-assemble a results document from the workers' raw JSON files and logs (no GPU)."""
    raw: dict[str, dict[str, Any]] = {}
    keys = (*INFERENCE_SCOPES, SAME_SHAPE_EAGER)
    for scope in keys + tuple(k + P.BATCH_INVARIANT for k in keys):
        path = Path(log_dir) / f"inference-{workload}-{scope}.json"
        if path.exists():
            raw[scope] = json.loads(path.read_text())
            raw[scope]["capture"]["capture_s_from_log"] = capture_from_log(path.with_suffix(".log"))
    if "none" not in raw:
        raise InputError(str(log_dir), f"no eager worker output inference-{workload}-none.json")
    result = assemble(raw, [], date)
    result["env"] = env
    return result


# --------------------------------------------------------------------------------------------
# Environment and rendering
# --------------------------------------------------------------------------------------------


def environment(worker_env: dict[str, Any]) -> dict[str, Any]:
    return {
        "gpu": worker_env.get("gpu"),
        "driver": driver_version(),
        "torch": worker_env.get("torch") or installed_version("torch"),
        "megatron_core": installed_version("megatron-core", "megatron_core"),
        "transformer_engine": installed_version(*TE_DISTRIBUTIONS),
        "cuda": worker_env.get("cuda"),
        "python": worker_env.get("python"),
    }


def _fmt_ci(d: dict[str, float] | None, unit: str = "×") -> str:
    if not d:
        return "—"
    return f"{d['point']:.2f}{unit} [{d['ci95_low']:.2f}, {d['ci95_high']:.2f}]"


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


def assemble(raw: dict[str, dict[str, Any]], failures: list[dict[str, Any]], date: str) -> dict[str, Any]:
    first = next(iter(raw.values()), {})
    variants = build_variants(raw)
    notes = []
    wl = first.get("workload", {})
    if wl.get("attention") == "pytorch-paged-fallback":
        notes.append("flash-attn is not installed: attention ran through the worker's plain-PyTorch "
                     "paged-attention functions (same contract as flash_attn_with_kvcache), which launch "
                     "more kernels than flash-attn; eager times and therefore speedups are larger than "
                     "with flash-attn.")
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": "inference",
        "date": date,
        "env": environment(first.get("env", {})),
        "workload": wl,
        "variants": variants,
        "speedup_falloff": falloff(variants),
        "all_graphed_tokens_match_eager": all(v["tokens_match_eager"] for v in variants
                                              if v["inference_scope"] != "none" and not v.get("batch_invariant")
                                              and v["tokens_match_eager"] is not None),
        "all_graphed_tokens_match_same_shape_eager": same_shape_parity(variants),
        "all_graphed_tokens_match_batch_invariant_eager": batch_invariant_parity(variants),
        "expert_bias": {k: d.get("expert_bias") for k, d in raw.items() if d.get("expert_bias", {}).get("restored")},
        "batch_shape_sensitivity": shape_sensitivity(raw),
        "failures": failures,
        "notes": notes,
    }


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
    doc = {**result, "failures": [_portable_failure(f, out_dir) for f in result.get("failures", [])]}
    paths["json"].write_text(json.dumps(portable_paths(doc, out_dir), indent=1, default=str) + "\n")
    return {k: str(p) for k, p in paths.items()}


# --------------------------------------------------------------------------------------------
# Entry point (called by skill_tools/commands/bench.py for --mode inference)
# --------------------------------------------------------------------------------------------


def _get(args: argparse.Namespace, name: str, default: Any) -> Any:
    value = getattr(args, name, None)
    return default if value is None else value


def batch_invariant_runs(text: str | Sequence[str], era: Era) -> list[str]:
    """Run keys for ``--batch-invariant-scopes`` (e.g. ``block``): batch-invariant eager at natural
    shapes plus each named graphed scope, all under ``batch_invariant_mode``."""
    names = [n for n in parse_scopes(text, era) if n != "none"] if (text and str(text).strip()) else []
    return ["none" + P.BATCH_INVARIANT] + [n + P.BATCH_INVARIANT for n in names] if names else []


def _stem(args: argparse.Namespace, workload: str, date: str) -> str:
    return getattr(args, "name", None) or f"{date}-inference-{'' if workload == 'tiny-gpt' else workload + '-'}unmeasured"


def report_unavailable(args: argparse.Namespace, data: dict[str, Any], out_dir: Path) -> int:
    """A results document that says why the workload was not measured (and where it was tried)."""
    date = _get(args, "date", _dt.date.today().isoformat())
    doc = {"schema_version": SCHEMA_VERSION, "kind": "inference", "date": date, "status": "unavailable",
           "env": environment(data.get("env", {})), "workload": data.get("workload", {}),
           "unavailable": data["unavailable"], "variants": [], "failures": [], "notes": []}
    spec = IW.WORKLOADS.get(doc["workload"].get("name", ""))
    doc["how_to_fix"] = IW.how_to_get(spec) if spec else []
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{_stem(args, doc['workload'].get('name', 'unknown'), date)}.json"
    path.write_text(json.dumps(doc, indent=1, default=str) + "\n")
    print(json.dumps({"status": "unavailable", "unavailable": doc["unavailable"], "how_to_fix": doc["how_to_fix"],
                      "artifacts": {"json": str(path)}}, indent=1) if getattr(args, "json", False) else
          f"{doc['workload'].get('name')}: not measured on {doc['env'].get('gpu')}:\n  - "
          + "\n  - ".join(doc["unavailable"] + doc["how_to_fix"]) + f"\nwrote {path}")
    return EXIT_FINDINGS


def write_failed(args: argparse.Namespace, workload: str, failures: list[dict[str, Any]], out_dir: Path) -> Path:
    """Keep the evidence when the eager baseline itself failed: a results document with the failures."""
    date = _get(args, "date", _dt.date.today().isoformat())
    doc = {"schema_version": SCHEMA_VERSION, "kind": "inference", "date": date, "status": "failed",
           "env": environment({}), "workload": IW.WORKLOADS[workload].to_dict(), "variants": [],
           "failures": [_portable_failure(f, out_dir) for f in failures], "notes": []}
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{_stem(args, workload, date)}.json"
    path.write_text(json.dumps(doc, indent=1, default=str) + "\n")
    return path


def _portable_failure(failure: dict[str, Any], out_dir: Path) -> dict[str, Any]:
    """A failure record with its log path relative to the results folder and install folders of
    packages in its evidence replaced (results files name no machine)."""
    out = portable_paths(failure, out_dir)
    for key in ("evidence", "tail"):
        if isinstance(out.get(key), str):
            out[key] = scrub_site_paths(out[key])
    return out


def run_inference_bench(args: argparse.Namespace) -> int:
    era = resolve_era(getattr(args, "mcore_version", None))
    scopes = parse_scopes(_get(args, "inference_scope", "none,layer,block"), era)
    check_rules(scopes, era)
    batch_sizes = parse_int_list(_get(args, "batch_sizes", "1,2,4,8"), "--batch-sizes")
    decode_tokens = int(_get(args, "decode_tokens", 64))
    trials = int(_get(args, "trials", 3))
    warmup = int(_get(args, "inference_warmup", 1))
    if decode_tokens < 2:
        raise InputError("--decode-tokens", f"{decode_tokens}: need at least 2 (prefill + 1 decode step)")
    if trials < 1:
        raise InputError("--trials", f"{trials}: need at least 1")
    workload = WORKLOAD_ALIASES.get(_get(args, "workload", "tiny-gpt"), _get(args, "workload", "tiny-gpt"))
    if workload not in WORKLOADS:
        raise InputError("--workload", f"{_get(args, 'workload', '')!r} has no inference workload",
                         hint="inference workloads: dense, moe, " + ", ".join(WORKLOADS))
    if _get(args, "size", "tiny") != "tiny":
        raise InputError("--size", f"{args.size!r}: inference mode has only the launch-bound tiny models",
                         hint="drop --size or use --size tiny with --mode inference")
    out_dir = Path(_get(args, "out", "benchmarks/results"))
    timeout_s = float(_get(args, "timeout_s", None) or _get(args, "timeout", 540))
    runs = list(scopes)
    if len(scopes) > 1 and not getattr(args, "no_same_shape_eager", False):
        runs.insert(1, SAME_SHAPE_EAGER)  # eager at the graphs' shapes, right after eager
    bi_runs = batch_invariant_runs(_get(args, "batch_invariant_scopes", ""), era)
    if getattr(args, "batch_invariant_only", False):
        if not bi_runs:
            raise InputError("--batch-invariant-only", "no --batch-invariant-scopes given", hint="e.g. block")
        runs = bi_runs  # a second pass beside an earlier run of the plain scopes
    else:
        runs += bi_runs
    baseline = runs[0]
    if getattr(args, "dry_run", False):
        plan = {"era": era.to_dict(), "scopes": scopes, "batch_sizes": batch_sizes,
                "same_shape_eager": SAME_SHAPE_EAGER in runs, "runs": runs,
                "decode_tokens": decode_tokens, "trials": trials, "workload": workload,
                "workload_spec": IW.WORKLOADS[workload].to_dict(),
                "unavailable_on_this_machine": IW.unavailable(IW.WORKLOADS[workload]),
                "variants": [scope_config(s).to_dict() for s in scopes]}
        print(json.dumps(plan, indent=1) if getattr(args, "json", False) else
              f"would run {', '.join(runs)} × batch {batch_sizes} ({decode_tokens} decode tokens, {trials} trials)"
              + (f"; {SAME_SHAPE_EAGER} = eager padded to the graph buckets, the parity control"
                 if SAME_SHAPE_EAGER in runs else ""))
        return EXIT_OK
    reasons = IW.unavailable(IW.WORKLOADS[workload])
    run_refused = bool(getattr(args, "run_refused", False))
    if reasons and run_refused:
        print("[bench inference] --run-refused: running despite: " + "; ".join(reasons), file=sys.stderr)
    elif reasons:  # the worker would refuse the same way; no GPU process is spent on it
        spec = IW.WORKLOADS[workload]
        return report_unavailable(args, {"unavailable": reasons, "env": {},
                                         "workload": {**spec.to_dict(), "about": spec.about}}, out_dir)
    require_gpu()

    work = out_dir / "logs"
    raw: dict[str, dict[str, Any]] = {}
    failures: list[dict[str, Any]] = []
    for scope in runs:
        out_json = work / f"inference-{workload}-{scope}.json"
        log_path = work / f"inference-{workload}-{scope}.log"
        argv = worker_args(scope, batch_sizes, decode_tokens, trials, warmup, workload, out_json)
        argv += ["--run-refused"] if run_refused else []
        status = run_variant(scope, argv, log_path, timeout_s)
        if status["ok"] and out_json.exists():
            data = json.loads(out_json.read_text())
            if data.get("unavailable"):  # the worker could not build this workload: no other run can
                print(f"[bench inference] {workload} cannot be built: " + "; ".join(data["unavailable"]),
                      file=sys.stderr)
                return report_unavailable(args, data, out_dir)
            data["capture"]["capture_s_from_log"] = capture_from_log(log_path)
            data["log_path"] = str(log_path)
            raw[scope] = data
        else:
            failures.append(status)
        print(f"[bench inference] {scope}: {'ok' if status['ok'] else status['error_class']} ({log_path})",
              file=sys.stderr)
    if baseline not in raw:
        raise_msg = failures[0] if failures else {"error_class": "no output", "evidence": ""}
        print(f"bench --mode inference: the eager baseline failed: {raise_msg['error_class']}: "
              f"{raise_msg.get('evidence')}", file=sys.stderr)
        write_failed(args, workload, failures, out_dir)
        return EXIT_FINDINGS
    date = _get(args, "date", _dt.date.today().isoformat())
    result = assemble(raw, failures, date)
    paths = write_outputs(result, out_dir, stem=getattr(args, "name", None))
    if getattr(args, "json", False):
        summary = {k: result[k] for k in ("kind", "date", "env", "all_graphed_tokens_match_eager",
                                          "all_graphed_tokens_match_same_shape_eager",
                                          "all_graphed_tokens_match_batch_invariant_eager", "speedup_falloff",
                                          "failures")}
        summary["variants"] = [{k: v.get(k) for k in ("name", "decode_step_ms", "tokens_per_s", "speedup_vs_eager",
                                                       "tokens_match_eager", "tokens_match_same_shape_eager",
                                                       "first_mismatch_same_shape", "graphs_count", "capture_s")}
                               for v in result["variants"]]
        summary["artifacts"] = paths
        print(json.dumps(summary, indent=1, default=str))
    else:
        print(render_markdown(result))
        print("wrote " + ", ".join(paths.values()))
    # Replay is correct when graphed tokens equal eager at the same padded shapes; without that
    # control, only equality with plain eager counts.
    parity = result["all_graphed_tokens_match_same_shape_eager"]
    ok = not failures and (result["all_graphed_tokens_match_eager"] if parity is None else parity)
    ok = ok and result["all_graphed_tokens_match_batch_invariant_eager"] is not False
    return EXIT_OK if ok else EXIT_FINDINGS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options ``bench --mode inference`` passes; also used by ``python -m`` of this module."""
    parser.add_argument("--batch-sizes", default="1,2,4,8")
    parser.add_argument("--decode-tokens", type=int, default=64)
    parser.add_argument("--inference-scope", default="none,layer,block")
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--steps", type=int, default=None, help="unused in inference mode")
    parser.add_argument("--workload", default="tiny-gpt")
    parser.add_argument("--out", default="benchmarks/results")
    parser.add_argument("--mcore-version", default=None)
    parser.add_argument("--timeout-s", type=float, default=540)
    parser.add_argument("--date", default=None)
    parser.add_argument("--no-same-shape-eager", action="store_true",
                        help="skip the eager control at the graphs' padded shapes (one process fewer)")
    parser.add_argument("--batch-invariant-scopes", default="",
                        help="also run eager and these graphed scopes under batch_invariant_mode "
                             "(token parity at natural shapes), e.g. block")
    parser.add_argument("--batch-invariant-only", action="store_true",
                        help="run only the batch-invariant runs (a second pass beside the plain scopes)")
    parser.add_argument("--run-refused", action="store_true",
                        help="run a workload this machine's checks refuse (e.g. one the installed megatron-core "
                             "cannot build), to observe and record how it fails")
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--json", action="store_true")


def main(argv: Sequence[str] | None = None) -> int:
    from skill_tools.errors import SkillToolsError

    parser = argparse.ArgumentParser(prog="python -m skill_tools.harness.inference_runner",
                                     description="eager vs layer- vs block-scoped inference CUDA graphs")
    add_arguments(parser)
    # `skill-tools bench` has its own --name (commands/bench.py); the module entry point takes it here
    parser.add_argument("--name", help="results file stem (default: <date>-inference-[<workload>-]<gpu>)")
    args = parser.parse_args(argv)
    try:
        return run_inference_bench(args)
    except SkillToolsError as exc:
        print(f"bench --mode inference: error: {exc}", file=sys.stderr)
        return exc.exit_code


if __name__ == "__main__":
    sys.exit(main())
