"""Judge the validator, the recommender and (optionally) the megatron-core oracle on the upstream
corpus, per split. Each case is run at the megatron-core version of its tag.

* validator: an accepted case with an error finding (or refused as input) is a false rejection;
  a graph-reason rejection without an error finding is a miss; a caught rejection whose error
  rules do not match upstream's message is a reason mismatch.
* recommender (shipped graph-enabled configs): agrees when its impl and modules equal NVIDIA's,
  or NVIDIA's equal the recommendation's "next" step; inference configs agree on the impl.
* oracle (``--oracle``, current-era shipped configs, installed megatron-core): a DISAGREES verdict
  whose cause is not a CUDA-graph rule is counted separately.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def load_cases() -> list[dict[str, Any]]:
    return [json.loads(line) for line in (HERE / "cases.jsonl").read_text(encoding="utf-8").splitlines() if line]


def load_split() -> dict[str, str]:
    data = json.loads((HERE / "split.json").read_text(encoding="utf-8"))
    return {**{i: "tune" for i in data["tune"]}, **{i: "test" for i in data["test"]}}


def validate_case(case: dict[str, Any]) -> dict[str, Any]:
    from skill_tools.api import validate
    from skill_tools.errors import InputError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            report = validate(case["text"] + "\n", case["mcore_version"], fmt=case["format"])
    except InputError as exc:
        return {"refused": str(exc)[:300], "errors": [], "warnings": []}
    return {"errors": [f.rule for f in report.findings if f.severity == "error"],
            "error_messages": [f.message[:200] for f in report.findings if f.severity == "error"],
            "warnings": sorted({f.rule for f in report.findings if f.severity == "warning"})}


def reason_matches(case: dict[str, Any], result: dict[str, Any]) -> bool:
    from skill_tools.rules import catalog

    message = case.get("message") or ""
    if not message:
        return bool(result["errors"])  # upstream names no message (e.g. argparse's SystemExit)
    for rule_id, text in zip(result["errors"], result.get("error_messages", [])):
        rule = catalog.load().by_id(rule_id)
        if rule.matches_mcore(message) or rule.matches_bridge(message):
            return True
        for ours in (rule.mcore_message, rule.bridge_message):
            try:
                if ours and re.search(message, ours.replace("\\", "")):
                    return True
            except re.error:
                pass
        try:
            if message and re.search(message, text):
                return True
        except re.error:
            pass
        names = _key_words(message)
        if names and names <= _words(" ".join([text, rule.message, rule.why, *rule.keys, *map(str, rule.fix)])):
            return True
    return False


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z_]{4,}", text)}


def _key_words(text: str) -> set[str]:
    """The config names in an upstream message (what a matching finding must also name)."""
    return {w.lower() for w in re.findall(r"[a-z]+_[a-z_]+", text)}


def _scope_of(next_step: str | None) -> list[str] | None:
    m = re.search(r"--scope\s+([\w,]+)", next_step or "")
    return m.group(1).split(",") if m else None


def recommend_case(case: dict[str, Any]) -> dict[str, Any]:
    from skill_tools.api import recommend
    from skill_tools.errors import InputError

    choice = case["nvidia_choice"]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rec = recommend(case["text"] + "\n", case["mcore_version"], fmt=case["format"])
    except InputError as exc:
        return {"agrees": False, "refused": str(exc)[:300]}
    ours = {"impl": rec.impl, "modules": sorted(rec.scope), "next": _scope_of(rec.next_step)}
    inference = rec.inference_scope is not None or (choice.get("inference_scope") not in (None, "none"))
    same_impl = rec.impl == choice["impl"]
    if inference or choice["impl"] in ("local", "full_iteration"):
        agrees = same_impl and (choice["impl"] != "local" or inference or sorted(choice["modules"]) == ours["modules"])
    elif choice["modules"] is None:
        agrees = same_impl  # the shipped config leaves the modules to its recipe: only the impl is NVIDIA's
    else:
        agrees = same_impl and (sorted(choice["modules"]) == ours["modules"]
                                or (ours["next"] is not None and sorted(choice["modules"]) == sorted(ours["next"])))
    return {"agrees": agrees, "ours": ours, "reason": rec.reason[:160], "evidence": rec.evidence[:3],
            "rejected_candidates": [r["errors"] for r in rec.rejected][:4]}


def oracle_case(case: dict[str, Any]) -> dict[str, Any]:
    from skill_tools.api import validate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = validate(case["text"] + "\n", case["mcore_version"], fmt=case["format"], oracle=True)
    o = report.oracle
    if not o.get("ran"):
        return {"ran": False, "reason": o.get("reason")}
    return {"ran": True, "agrees": o.get("agrees"), "could_not_judge": o.get("could_not_judge"), "rule": o.get("rule"),
            "error": (o.get("error") or "")[:200]}


def measure(cases: list[dict[str, Any]], split: dict[str, str], oracle: bool = False) -> dict[str, Any]:
    from skill_tools.config.era import installed_version, era_for

    installed = installed_version("megatron-core")
    rows = []
    for case in cases:
        row: dict[str, Any] = {"id": case["id"], "split": split.get(case["id"], "unsplit"), "kind": case["kind"],
                               "era": case["era"], "verdict": case["verdict"]}
        res = validate_case(case)
        row["validate"] = res
        rejected = bool(res.get("refused") or res["errors"])
        if case["verdict"] == "accepted":
            row["false_rejection"] = rejected
        elif case.get("graph_reason"):
            row["miss"] = not rejected
            row["reason_match"] = rejected and not res.get("refused") and reason_matches(case, res)
        if case["kind"] == "shipped":
            row["recommend"] = recommend_case(case)
            if oracle and installed and era_for(installed).name == case["era"]:
                row["oracle"] = oracle_case(case)
        rows.append(row)
    return {"summary": summarize(rows), "cases": rows}


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for split in ("tune", "test", "all"):
        sel = [r for r in rows if split == "all" or r["split"] == split]
        block: dict[str, Any] = {}
        for kind in ("shipped", "unit_test"):
            for era in ("legacy", "current"):
                ks = [r for r in sel if r["kind"] == kind and r["era"] == era]
                acc = [r for r in ks if r["verdict"] == "accepted"]
                rej = [r for r in ks if "miss" in r]
                block[f"{kind}/{era}"] = {
                    "cases": len(ks), "accepted": len(acc),
                    "false_rejections": sum(r["false_rejection"] for r in acc),
                    "graph_rejections": len(rej), "misses": sum(r["miss"] for r in rej),
                    "reason_mismatches": sum(not r["miss"] and not r["reason_match"] for r in rej)}
        recs = [r["recommend"] for r in sel if "recommend" in r]
        block["recommender"] = {"cases": len(recs), "agrees": sum(r["agrees"] for r in recs),
                                "rate": round(sum(r["agrees"] for r in recs) / len(recs), 3) if recs else None}
        ors = [r["oracle"] for r in sel if r.get("oracle", {}).get("ran")]
        block["oracle"] = {"ran": len(ors), "disagrees": sum(o["agrees"] is False for o in ors),
                           "could_not_judge": sum(o["agrees"] is None for o in ors)}
        out[split] = block
    return out
