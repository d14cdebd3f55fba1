"""Whether the scorer's verdicts survive re-rendering an answer in another surface form.

A held-out answer the rules judge right (a correct one that passes, a wrong one that fails) is
re-rendered in ways that keep its meaning, and scored again; a verdict that flips is a reading that
depends on the surface, the kind of weakness that shows up on answers written in unseen styles.
Only Markdown answers (with a fenced block) are re-rendered, only in their prose outside the fences,
and only on lines that read as prose, so code, diffs and configs are left as written:

- ``capitals``: capitalised words lowercased (a hurried reply), acronyms and identifiers kept;
- ``wrap``: prose paragraphs hard-wrapped at 64 columns (not inside a code span, not at a hyphen);
- ``emphasis``: ``**bold**`` / ``__bold__`` markers removed;
- ``bullets``: ``- item`` written ``* item``;
- ``headings``: ``## Heading`` written as a plain line;
- ``quotes``: inline code spans written in single quotes (```x=1``` becomes ``'x=1'``).

Reports, per re-rendering, how many answers it changed and how many of those flip to a false pass
or a false fail (with their split and id, to look at). Nothing here learns from a split: it reads
labels only to know which verdict is right.

Usage (from the repository root; PYTHONPATH decides which scorer is measured):
    python benchmarks/bench_evals_rerender.py 'evals/heldout-*/*' [--only quotes,wrap] [--out FILE]
"""

from __future__ import annotations

import argparse
import glob
import json
import re
import sys
import textwrap
from pathlib import Path
from typing import Callable

from skill_tools.cli import refusal
from skill_tools.evaluation.score import score_all
from skill_tools.evaluation.tasks import AnswerRecord, load_answers, load_tasks

REPO = Path(__file__).resolve().parent.parent
_FENCE = re.compile(r"^\s*(```|~~~)")
_PROSE = re.compile(r"[A-Za-z]{2,}[,']? [A-Za-z]{2,} [A-Za-z]{2,}")
_CODE_LIKE = re.compile(r"\s{2,}|\t|[\w.\[\]\"'-]+\s*[=(]|[-+] ?[\w.]+\s*[:=]|@@|diff |\$ ")


def _is_prose(line: str) -> bool:
    return bool(_PROSE.search(line)) and not _CODE_LIKE.match(line)


def _prose_map(text: str, fn: Callable[[str], str]) -> str:
    """``fn`` applied to the prose between the fences of a Markdown answer; other answers unchanged."""
    if "```" not in text and "~~~" not in text:
        return text
    out, buf, code = [], [], False
    for line in text.split("\n"):
        if _FENCE.match(line):
            if code:
                out.append("\n".join(buf + [line]))
                buf, code = [], False
            else:
                out.append(fn("\n".join(buf)) if buf else None)
                buf, code = [line], True
            continue
        buf.append(line)
    out.append("\n".join(buf) if code else fn("\n".join(buf)))
    return "\n".join(o for o in out if o is not None)


def _lines(fn: Callable[[str], str]) -> Callable[[str], str]:
    return lambda chunk: "\n".join(fn(ln) if _is_prose(ln) else ln for ln in chunk.split("\n"))


def _capitals(line: str) -> str:
    if re.search(r"[=(){}\[\]]", line):
        return line
    return re.sub(r"(`[^`\n]*`)|([^`]+)", lambda m: m.group(1) or re.sub(
        r"\b(?!True\b|False\b|None\b)[A-Z][a-z]+\b(?![_=.(\[-])", lambda w: w.group(0).lower(), m.group(2)), line)


def _wrap(chunk: str) -> str:
    out = []
    for para in chunk.split("\n\n"):
        lines = para.split("\n")
        prose = all(ln and _is_prose(ln) and not re.match(r"\s*([-*+|>#]|\d+[.)])", ln) for ln in lines)
        if not (prose and len(para) > 80):
            out.append(para)
            continue
        # as an editor wraps: never inside a code span or at a hyphen ("drop-and-pad" stays one word)
        joined = re.sub(r"`[^`\n]+`", lambda m: m.group(0).replace(" ", "\x00"), " ".join(ln.strip() for ln in lines))
        out.append(textwrap.fill(joined, 64, break_on_hyphens=False, break_long_words=False).replace("\x00", " "))
    return "\n\n".join(out)


RERENDERINGS: dict[str, Callable[[str], str]] = {
    "capitals": _lines(_capitals),
    "wrap": _wrap,
    "emphasis": lambda c: re.sub(r"\*\*|__", "", c),
    "bullets": _lines(lambda ln: re.sub(r"^(\s*)- ", r"\1* ", ln)),
    "headings": lambda c: re.sub(r"(?m)^#{1,6}\s+(.*?):?$", r"\1", c),
    "quotes": lambda c: re.sub(r"`([^`\n]+)`", r"'\1'", c),
}


def measure(splits: list[Path], evals: Path, only: list[str]) -> dict:
    tasks = load_tasks(evals)
    rows = {name: {"changed": 0, "false_passes": 0, "false_fails": 0, "flips": []} for name in only}
    for split in splits:
        labels = {json.loads(ln)["id"]: json.loads(ln)["label"] for ln in (split / "labels.jsonl").read_text().splitlines() if ln.strip()}
        records = [r for r in load_answers(split / "answers" / "answers.jsonl") if r.agent.split("/")[-1] in labels]
        base = {a["agent"]: a["passed"] for a in score_all(tasks, records, refusal=refusal)["answers"]}
        right = [r for r in records if base.get(r.agent) == (labels[r.agent.split("/")[-1]] == "correct")]
        for name in only:
            changed = [AnswerRecord(r.id, r.condition, r.agent, text, r.line, files=r.files, deleted=r.deleted)
                       for r in right if (text := _prose_map(r.answer, RERENDERINGS[name])) != r.answer]
            if not changed:
                continue
            row = rows[name]
            row["changed"] += len(changed)
            for a in score_all(tasks, changed, refusal=refusal)["answers"]:
                answer_id = a["agent"].split("/")[-1]
                if a["passed"] != (labels[answer_id] == "correct"):
                    kind = "false_fails" if labels[answer_id] == "correct" else "false_passes"
                    row[kind] += 1
                    row["flips"].append({"split": f"{split.parent.name}/{split.name}", "id": answer_id, "flip": kind,
                                         "why": (a.get("fatal") or [""])[0][:200]})
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("splits", help="a glob of split folders (each with labels.jsonl and answers/answers.jsonl)")
    ap.add_argument("--evals", type=Path, default=REPO / "evals" / "evals.json")
    ap.add_argument("--only", default=",".join(RERENDERINGS), help="comma-separated re-renderings")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    only = [n for n in args.only.split(",") if n]
    unknown = [n for n in only if n not in RERENDERINGS]
    splits = sorted(Path(p) for p in glob.glob(args.splits) if (Path(p) / "labels.jsonl").is_file())
    if unknown or not splits:
        print(f"bench_evals_rerender: {'unknown re-rendering(s) ' + ', '.join(unknown) if unknown else 'no split matches ' + args.splits}"
              f" (known: {', '.join(RERENDERINGS)})", file=sys.stderr)
        return 2
    rows = measure(splits, args.evals, only)
    for name, row in rows.items():
        print(f"{name:10s} changed {row['changed']:5d}  flips to false pass {row['false_passes']:3d}  to false fail {row['false_fails']:3d}")
    if args.out:
        args.out.write_text(json.dumps({"splits": len(splits), "rerenderings": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
