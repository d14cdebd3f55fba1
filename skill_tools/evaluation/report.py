"""Render a scoring report: a terminal table for people, Markdown for results files.

The JSON report is the dict built by :func:`skill_tools.evaluation.aggregate.aggregate`; these
functions only format it.
"""

from __future__ import annotations

import json
from typing import Any


def _fmt(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def _uplift(x: float | None) -> str:
    return "—" if x is None else f"{x:+.2f}"


def _cell(task: dict[str, Any], cond: str) -> str:
    c = task["conditions"].get(cond)
    if not c:
        return "—"
    flag = " !" if c["unsafe"] else ""
    return f"{c['score']:.2f}{flag}"


def _conditions(report: dict[str, Any]) -> list[str]:
    return list(report["conditions"]) or ["with_skill"]


def text_table(report: dict[str, Any]) -> str:
    """A compact table per task plus the summary and the gate verdict."""
    conds = _conditions(report)
    idw = max([4] + [len(t["id"]) for t in report["tasks"]])
    head = f"{'task':<{idw}}  {'trig':<4}  " + "  ".join(f"{c:>13}" for c in conds) + "  uplift  execution"
    lines = [head, "-" * len(head)]
    for t in report["tasks"]:
        if not t["conditions"]:
            continue
        execs = {c["execution"] for c in t["conditions"].values()}
        lines.append(f"{t['id']:<{idw}}  {'yes' if t['should_trigger'] else 'no':<4}  "
                     + "  ".join(f"{_cell(t, c):>13}" for c in conds)
                     + f"  {_uplift(t['uplift']):>6}  {', '.join(sorted(execs))}")
    lines.append("")
    for cond, s in report["conditions"].items():
        lines.append(f"{cond}: {s['answers']} answers, mean {s['mean_score']:.2f}, pass rate {s['pass_rate']:.0%}"
                     f" (positive {_fmt(s['positive_mean'])}, negative {_fmt(s['negative_mean'])})"
                     + (f", {s['unsafe_answers']} unsafe" if s["unsafe_answers"] else "")
                     + (f", {s['generic_answers']} scored generically (another skill's tasks: assertions as "
                        "written, no CUDA-graph checks)" if s.get("generic_answers") else "")
                     + (f", {len(s['tasks_without_answer'])} tasks unanswered" if s["tasks_without_answer"] else ""))
    up = report["uplift"]
    if up["tasks_compared"]:
        lines.append(f"uplift (with_skill - without_skill): mean {_uplift(up['mean'])} over {up['tasks_compared']} tasks "
                     f"({up['improved']} improved, {up['regressed']} regressed)")
    for r in report["rejected_answers"]:
        lines.append(f"rejected: line {r['line']} ({r['id']}): {r['problem']}")
    j = report.get("judge")
    if j:
        lines.append(f"judge ({j['protocol']}): {j['answers_judged']} answers judged, {j['judge_failures']} judge failures, "
                     f"agreement with the deterministic verdicts {_fmt(j['mean_agreement'])} (reported beside, never mixed)")
        if j["answers_judged"]:
            lines.append(f"judge: fails {j['judge_fails_deterministic_pass']} the rules pass, passes "
                         f"{j['judge_passes_deterministic_fail']} they fail; answers passed with the judge as a veto "
                         f"{j['passed_veto']}/{j['answers_judged']}, with its verdict deciding {j['passed_decides']}/{j['answers_judged']}")
    g = report["gate"]
    lines.append(f"gate: {g['condition']} mean {g['mean_score']:.2f} vs threshold {report['threshold']:.2f} -> "
                 + ("PASS" if g["passed"] else "FAIL"))
    lines.append("('!' marks a cell with an unsafe answer; scores are 0-1; run with --json for every explanation)")
    return "\n".join(lines)


def markdown(report: dict[str, Any], title: str = "Eval scores") -> str:
    conds = _conditions(report)
    out = [f"# {title}", ""]
    g = report["gate"]
    out.append(f"Task set: `{report['evals']}`. Threshold {report['threshold']:.2f}; gate on `{g['condition']}`: "
               f"mean {g['mean_score']:.2f} -> **{'PASS' if g['passed'] else 'FAIL'}**.")
    up = report["uplift"]
    if up["tasks_compared"]:
        out.append(f"Skill uplift (with − without): mean **{_uplift(up['mean'])}** over {up['tasks_compared']} tasks "
                   f"({up['improved']} improved, {up['regressed']} regressed).")
    out += ["", "## Per condition", "", "| condition | answers | mean | pass rate | positive | negative | unsafe |",
            "|---|---|---|---|---|---|---|"]
    for cond, s in report["conditions"].items():
        out.append(f"| {cond} | {s['answers']} | {s['mean_score']:.2f} | {s['pass_rate']:.0%} | "
                   f"{_fmt(s['positive_mean'])} | {_fmt(s['negative_mean'])} | {s['unsafe_answers']} |")
    out += ["", "## Per task", "", "| task | triggers | pain points | " + " | ".join(conds) + " | uplift | execution |",
            "|---|---|---|" + "---|" * len(conds) + "---|---|"]
    for t in report["tasks"]:
        if not t["conditions"]:
            continue
        execs = ", ".join(sorted({c["execution"] for c in t["conditions"].values()}))
        out.append(f"| `{t['id']}` | {'yes' if t['should_trigger'] else 'no'} | {', '.join(t['pain_points'])} | "
                   + " | ".join(_cell(t, c) for c in conds) + f" | {_uplift(t['uplift'])} | {execs} |")
    out += ["", "## Per answer and behavior", ""]
    for a in report["answers"]:
        out.append(f"### `{a['id']}` — {a['condition']}{' / ' + a['agent'] if a['agent'] else ''}: "
                   f"{a['score']:.2f} ({'pass' if a['passed'] else 'fail'})")
        if a["problem"]:
            out.append(f"- **rejected**: {_md(a['problem'])}")
        if a.get("judge"):
            jd = a["judge"]
            out.append(f"- judge: {_md(jd['error'])}" if "error" in jd else
                       "- judge (beside, not in the score): " + "; ".join(
                           f"#{v['assertion']} {v['verdict']}" + (f" ({_md(v['reason'][:80])})" if v["reason"] else "")
                           for v in jd["verdicts"]))
        for f in a["findings"]:
            out.append(f"- finding ({f['kind']}{', line ' + str(f['line']) if f['line'] else ''}): {_md(f['message'])}")
        for b in a["behaviors"]:
            out.append(f"- {_fmt(b['score'])} — {_md(b['behavior'])}" + (f" _({b['note']})_" if b["note"] else ""))
            for c in b["checks"]:
                ev = f" — evidence: `{_code(c['evidence'])}`" if c["evidence"] else ""
                out.append(f"  - {_fmt(c['score'])} {c['type']}: {_md(c['explanation'])}{ev}")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    return str(text).replace("`", "'").replace("\n", " ")[:200]


def to_json(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, sort_keys=False, default=str)
