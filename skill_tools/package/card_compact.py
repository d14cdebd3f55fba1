"""The card.yaml sections ``card sync`` writes, in the shapes NVIDIA's skills catalog cards use.

The catalog's cards are small (the largest ``nemo-mbridge-*`` card is about 17 KB): ``validated_on``
is a date string, ``validation_status`` maps a claim id to a list of tokens (``measured``,
``code_verified``, ...), ``measured_results`` has one entry per run (``model``, ``task``, ``gpu``,
iteration times, ``status``) and
``expected_metric_change`` a few entries of ``metric/direction/magnitude/conditions/evidence``.
The per-variant detail (every variant of every results file, each naming its file) is generated
into ``benchmarks/measured.yaml`` instead, and the claims behind ``validation_status`` (claim text
and what verifies it) live in ``benchmarks/validation.yaml``; the card links both.

Everything here is derived from the results files and the claims file, so a new engine or
workload shows up by adding a results file: nothing is keyed on a particular engine or size.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from skill_tools.package.card_results import (
    KINDS,
    LOSS_PARITY_TOL,
    ResultsFile,
    ci_of,
    is_eager,
    peak_gb,
    rounded,
    variant_status,
)
from skill_tools.errors import InputError

VALIDATION = "benchmarks/validation.yaml"
DETAIL = "benchmarks/measured.yaml"
#: How a claim's ``status`` and citations map to the catalog's validation tokens.
STATUS_TOKENS = {"unverified": "unclear", "external": "documented", "partially_verified": "partially_verified"}


# --------------------------------------------------------------------------------------------
# validation_status
# --------------------------------------------------------------------------------------------


def load_claims(root: Path) -> list[dict[str, Any]]:
    """The hand-written claims (``id``, ``claim``, ``status``, ``verified_by``); [] when absent."""
    path = root / VALIDATION
    if not path.is_file():
        return []
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise InputError(VALIDATION, f"YAML syntax error: {getattr(exc, 'problem', exc)}",
                         line=mark.line + 1 if mark else None) from None
    claims = data.get("claims") if isinstance(data, dict) else None
    if not isinstance(claims, list):
        raise InputError(VALIDATION, "has no 'claims' list", hint="claims: [{id, claim, status, verified_by}]")
    seen: set[str] = set()
    for i, c in enumerate(claims):
        if not isinstance(c, dict) or not isinstance(c.get("id"), str) or not c.get("status"):
            raise InputError(VALIDATION, f"claims[{i}] needs an 'id' and a 'status'",
                             hint="each claim: id (snake_case), claim, status, verified_by")
        if c["id"] in seen:
            raise InputError(VALIDATION, f"duplicate claim id {c['id']!r}", hint="ids must be unique")
        seen.add(c["id"])
    return claims


def citations(claim: dict[str, Any]) -> list[str]:
    cited = claim.get("verified_by") or []
    return [cited] if isinstance(cited, str) else [str(c) for c in cited]


def tokens(claim: dict[str, Any]) -> list[str]:
    """Catalog tokens: what kind of evidence verifies the claim, most direct first."""
    status = claim.get("status")
    if status in STATUS_TOKENS:
        return [STATUS_TOKENS[status]]
    out: list[str] = []
    for cite in citations(claim):
        if cite.startswith("benchmarks/results/"):
            tok = "measured"
        elif cite.startswith("tests/"):
            tok = "functional_verified"
        elif cite.startswith("rule "):
            tok = "code_verified"
        else:
            tok = "documented"
        if tok not in out:
            out.append(tok)
    order = ("measured", "functional_verified", "code_verified", "documented")
    return sorted(out, key=order.index) or ["unclear"]


def validation_status(claims: list[dict[str, Any]]) -> dict[str, list[str]]:
    return {c["id"]: tokens(c) for c in claims}


def validated_on(files: list[ResultsFile]) -> str:
    """The date of the newest validating run (catalog cards carry one date string); helper speed
    benchmarks measure the tools, not the card's claims, and do not count."""
    dates = sorted(f.date for f in files if f.date != "undated" and f.kind != "tool")
    return dates[-1] if dates else "not validated on hardware"


# --------------------------------------------------------------------------------------------
# measured_results: one entry per harness results file
# --------------------------------------------------------------------------------------------


def _workload(data: dict[str, Any]) -> str:
    w = data.get("workload")
    if isinstance(w, str):
        return w
    if not isinstance(w, dict):
        return "unspecified"
    name = w.get("workload") or w.get("name") or w.get("model") or "unspecified"
    return f"{name}-{w['size']}" if w.get("size") else str(name)


def _capture_stream(data: dict[str, Any]) -> str | None:
    """The stream the workers ran on: it decides whether TE/full-iteration capture works on older torch."""
    w = data.get("workload")
    return str(w["capture_stream"]) if isinstance(w, dict) and w.get("capture_stream") else None


def _speedup(v: dict[str, Any]) -> str:
    p, lo, hi = ci_of(v.get("speedup_vs_eager"), "point")
    if p is None:
        return "no speedup measured"
    return f"x{p:.2f} [{lo:.2f}, {hi:.2f}]" if lo is not None and hi is not None else f"x{p:.2f}"


def _training_variant(v: dict[str, Any]) -> str:
    status = variant_status(v, "training")
    if status in ("baseline", "control"):
        med = ci_of(v.get("step_ms"), "median")[0]
        return f"{status}, {med:.2f} ms/step" if med is not None else status
    if status in ("failed", "not_captured"):
        return f"{status}: {v.get('error_class') or 'no graph captured'}"
    # The common case says least: a success with loss equal to eager is only its speedup.
    delta = rounded(v.get("loss_max_abs_delta"), 6)
    text = _speedup(v) if delta == 0 else f"{_speedup(v)}, Δloss {delta if delta is not None else 'n/a'}"
    return text if status == "success" else f"{text}, {status}"


def _failed_run(variants: list[dict[str, Any]]) -> dict[str, str] | None:
    """A run where no graphed variant ran, in the catalog's ``status``/``error`` shape (its cards
    write a blocked run as ``status: blocked`` with the ``error``): variant names grouped by cause."""
    graphed = [v for v in variants if variant_status(v, "training") not in ("baseline", "control")]
    if not graphed or any(variant_status(v, "training") not in ("failed", "not_captured") for v in graphed):
        return None
    causes: dict[str, list[str]] = {}
    for v in graphed:
        status = variant_status(v, "training")
        cause = v.get("error_class") if status == "failed" else None
        causes.setdefault(str(cause) if cause else status.replace("_", " "), []).append(v["name"])
    return {"status": "failed", "error": "; ".join(f"{c} ({', '.join(n)})" for c, n in causes.items())}


def _inference_scopes(variants: list[dict[str, Any]]) -> dict[str, str]:
    """Per inference scope: speedup range over batch sizes and how many variants had each status."""
    out: dict[str, str] = {}
    scopes = sorted({v.get("inference_scope") or "none" for v in variants if not is_eager(v, "inference")})
    for scope in scopes:
        group = [v for v in variants if (v.get("inference_scope") or "none") == scope]
        points = [p for p in (ci_of(v.get("speedup_vs_eager"), "point")[0] for v in group) if p is not None]
        batches = sorted(b for b in (v.get("batch_size") for v in group) if isinstance(b, int))
        counts: dict[str, int] = {}
        for v in group:
            s = variant_status(v, "inference")
            counts[s] = counts.get(s, 0) + 1
        span = f"x{min(points):.2f}-x{max(points):.2f}" if points else "no speedup measured"
        where = f" over batch {batches[0]}-{batches[-1]}" if batches else ""
        out[scope] = f"{span}{where}; " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
    return out


def compact_measured(files: list[ResultsFile]) -> list[dict[str, Any]]:
    """One entry per harness results file, in the catalog's field names (``model``, ``task``,
    ``gpu``, ``baseline_iter_ms``, ``status``-bearing variants); ``results_file`` names the file in
    benchmarks/results/, where the full software stack and every sample are. The megatron-core
    versions are stated once per metric in ``expected_metric_change.conditions``."""
    out: list[dict[str, Any]] = []
    for f in files:
        if f.kind not in KINDS or _batch_invariant_only(f) or _headroom_study(f):
            continue
        entry: dict[str, Any] = {"model": _workload(f.data),
                                 "task": "pretrain" if f.kind == "training" else "inference_decode"}
        entry["gpu"] = str(f.env.get("gpu") or "not recorded")
        if f.engine or (f.kind == "training" and f.env.get("megatron_core")):
            # one line: the loop that ran and the megatron-core it ran on
            mcore = f" on megatron-core {f.env['megatron_core']}" if f.env.get("megatron_core") else ""
            entry["engine"] = f"{f.engine or 'proxy'}{mcore}"
        base = None
        if f.kind == "training":
            base = next((v for v in f.data["variants"] if variant_status(v, "training") == "baseline"), None)
            med = ci_of(base.get("step_ms"), "median")[0] if base else None
            if med is not None:
                entry["baseline_iter_ms"] = round(med, 2)
        if _capture_stream(f.data):
            entry["capture_stream"] = _capture_stream(f.data)
        if f.kind == "training":
            rest = [v for v in f.data["variants"] if not (v is base and "baseline_iter_ms" in entry)]
            entry.update(_failed_run(rest) or {"variants": {v["name"]: _training_variant(v) for v in rest}})
        else:
            entry["scopes"] = _inference_scopes(f.data["variants"])
        entry["results_file"] = Path(f.rel).name
        out.append(entry)
    return out


# --------------------------------------------------------------------------------------------
# expected_metric_change: a few aggregated entries
# --------------------------------------------------------------------------------------------


def _batch_invariant_only(f: ResultsFile) -> bool:
    """A parity check under batch_invariant_mode (slower fixed-reduction kernels, eager at natural
    shapes): BENCHMARK.md lists it; the size-bounded card carries no speed or parity line from it."""
    return f.kind == "inference" and bool(f.data["variants"]) and all(v.get("batch_invariant") for v in f.data["variants"])


def _headroom_study(f: ResultsFile) -> bool:
    """An A/B with a headroom report (users' configs at their real layer shapes, the tiny headroom
    study): BENCHMARK.md lists it per variant; the size-bounded card counts it in
    expected_metric_change and states the real-shape outcome once, in known_limitations."""
    return bool(f.data.get("headroom_report")) or any("headroom" in v for v in f.data.get("variants") or [])


def _graphed(files: list[ResultsFile], kind: str) -> list[tuple[ResultsFile, dict[str, Any]]]:
    return [(f, v) for f in files if f.kind == kind for v in f.data["variants"]
            if not is_eager(v, kind) and variant_status(v, kind) not in ("failed", "not_captured")
            and not v.get("batch_invariant")]


def _range(values: list[float], fmt: str) -> str:
    lo, hi = min(values), max(values)
    return fmt.format(lo) if lo == hi else f"{fmt.format(lo)} to {fmt.format(hi)}"


def _conditions(pairs: list[tuple[ResultsFile, dict[str, Any]]]) -> str:
    gpus = sorted({str(f.env.get("gpu")) for f, _ in pairs if f.env.get("gpu")})
    gpus += [f"megatron-core {v}" for v in sorted({str(f.env["megatron_core"]) for f, _ in pairs
                                                   if f.env.get("megatron_core")})]
    engines = sorted({f.engine for f, _ in pairs if f.engine})
    workloads = sorted({_workload(f.data) for f, _ in pairs})
    configs = [w for w in workloads if w.startswith("config-")]  # users' configs at their real layer shapes
    workloads = [w for w in workloads if w not in configs] + ([f"{len(configs)} real-shape configs"]
                                                              if configs else [])
    streams = sorted({_capture_stream(f.data) or "not recorded" for f, _ in pairs})
    text = f"{', '.join(gpus) or 'GPU not recorded'}; workloads {', '.join(workloads)}"
    if streams != ["not recorded"]:
        text += f"; capture_stream {', '.join(streams)}"
    return text + (f"; engines {', '.join(engines)}" if engines else "")


def _evidence(pairs: list[tuple[ResultsFile, dict[str, Any]]]) -> str:
    """Which results files, by count: measured_results lists each file, measured.yaml each variant."""
    n = len({f.rel for f, _ in pairs})
    return f"measured_results ({n} file{'s' if n != 1 else ''})"


def compact_expected(files: list[ResultsFile]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    train = _graphed(files, "training")
    speed = [(f, v, ci_of(v.get("speedup_vs_eager"), "point")) for f, v in train]
    speed = [(f, v, c) for f, v, c in speed if c[0] is not None]
    if speed:
        down = [c[0] for _, _, c in speed if c[1] is not None and c[1] > 1.0]
        out.append({"metric": "step_time", "direction": "down" if len(down) == len(speed) else "+/-",
                    "magnitude": f"speedup {_range([c[0] for _, _, c in speed], 'x{:.2f}')} over "
                                 f"{len(speed)} graphed variants ({len(down)} with the 95% CI above 1)",
                    "conditions": _conditions([(f, v) for f, v, _ in speed]),
                    "evidence": _evidence([(f, v) for f, v, _ in speed])})
    loss = [(f, v) for f, v in train if rounded(v.get("loss_max_abs_delta"), 6) is not None]
    if loss:
        same = [v for _, v in loss if v["loss_max_abs_delta"] <= LOSS_PARITY_TOL]
        differ = sorted({v["name"] for _, v in loss if v["loss_max_abs_delta"] > LOSS_PARITY_TOL})
        out.append({"metric": "loss", "direction": "unchanged" if not differ else "unchanged_except_listed",
                    "magnitude": f"{len(same)} of {len(loss)} graphed variants within {LOSS_PARITY_TOL:g} of eager"
                                 + (f"; differ: {', '.join(differ)}" if differ else ""),
                    "conditions": _conditions(loss), "evidence": _evidence(loss)})
    infer = _graphed(files, "inference")
    dec = [(f, v, ci_of(v.get("speedup_vs_eager"), "point")[0]) for f, v in infer]
    dec = [(f, v, p) for f, v, p in dec if p is not None]
    if dec:
        out.append({"metric": "decode_step_time", "direction": "down" if all(p > 1 for *_, p in dec) else "+/-",
                    "magnitude": f"speedup {_range([p for *_, p in dec], 'x{:.2f}')} over {len(dec)} "
                                 "scope x batch-size variants",
                    "conditions": _conditions([(f, v) for f, v, _ in dec]),
                    "evidence": _evidence([(f, v) for f, v, _ in dec])})
    toks = [(f, v) for f, v in infer if "tokens_match_same_shape_eager" in v or "tokens_match_eager" in v]
    if toks:
        key = lambda v: v.get("tokens_match_same_shape_eager", v.get("tokens_match_eager"))  # noqa: E731
        equal = sum(1 for _, v in toks if key(v))
        out.append({"metric": "greedy_tokens", "direction": "unchanged" if equal == len(toks) else "+/-",
                    "magnitude": f"{equal} of {len(toks)} variants equal to eager at the same padded batch shape",
                    "conditions": _conditions(toks), "evidence": _evidence(toks)})
    mem = []
    for f in files:
        if f.kind != "training":
            continue
        base = next((peak_gb(v) for v in f.data["variants"] if variant_status(v, "training") == "baseline"), None)
        for v in f.data["variants"]:
            if base is not None and peak_gb(v) is not None and (f, v) in train:
                mem.append((f, v, peak_gb(v) - base))
    if mem:
        out.append({"metric": "peak_memory", "direction": "up" if all(d > 0 for *_, d in mem) else "+/-",
                    "magnitude": f"{_range([d for *_, d in mem], '{:+.2f} GB')} vs eager over {len(mem)} variants",
                    "conditions": _conditions([(f, v) for f, v, _ in mem]),
                    "evidence": _evidence([(f, v) for f, v, _ in mem])})
    return out
