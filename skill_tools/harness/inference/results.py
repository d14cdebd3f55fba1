"""Inference results: decode statistics, token parity against eager, and the results document.

Pure data work on the worker's raw records (no GPU, no torch): per-variant decode statistics with
bootstrap CIs (``skill_tools.stats``), the token-by-token parity verdicts (plain eager, eager at the
graphs' padded shapes, batch-invariant eager), the speedup fall-off with batch size, and the
document :func:`assemble` writes.
"""

from __future__ import annotations

from typing import Any

from skill_tools.config.era import TE_DISTRIBUTIONS, installed_version
from skill_tools.harness.inference import parity as P
from skill_tools.harness.results import driver_version
from skill_tools.stats import ratio_ci, summarize

SCHEMA_VERSION = 1
#: The eager control run at the graphs' padded decode shapes (worker ``--eager-graph-shapes``):
#: graphed tokens are compared with it to separate replay from shape-dependent bf16 rounding.
SAME_SHAPE_EAGER = P.SAME_SHAPE_EAGER


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


