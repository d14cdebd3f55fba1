"""Read the task set and the answers file; both are checked before anything is scored.

The task set is trusted project data (schema-checked). The answers file is untrusted: each
line is size-limited, ids must be plain names, and an ``answer_file`` reference may only
point at a file beside the answers file (no absolute paths, no ``..``, no links out).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from skill_tools.errors import InputError
from skill_tools.evaluation.extract import MAX_ANSWER_CHARS, Finding

ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
CONDITIONS = ("with_skill", "without_skill")
MAX_LINE_BYTES = 1_000_000
MAX_FILE_BYTES = 200_000_000


@dataclass
class Task:
    data: dict[str, Any]

    @property
    def id(self) -> str:
        return str(self.data["id"])

    @property
    def should_trigger(self) -> bool:
        return bool(self.data.get("should_trigger", True))

    @property
    def behaviors(self) -> list[str]:
        return list(self.data.get("expected_behavior", []))

    @property
    def rubric(self) -> dict[str, Any] | None:
        return self.data.get("rubric")


@dataclass
class TaskSet:
    tasks: dict[str, Task]
    meta: dict[str, Any] = field(default_factory=dict)
    source: str = "evals/evals.json"


@dataclass
class AnswerRecord:
    id: str
    condition: str
    agent: str
    answer: str
    line: int
    findings: list[Finding] = field(default_factory=list)

    @property
    def rejected(self) -> bool:
        return any(f.kind == "security" for f in self.findings)


def load_tasks(path: str | Path, *, validate_schema: bool = True) -> TaskSet:
    p = Path(path)
    if not p.is_file():
        raise InputError(str(path), "eval task set not found", hint="pass --evals PATH (default evals/evals.json)")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(str(path), f"JSON syntax error: {exc.msg}", line=exc.lineno,
                         hint="fix the JSON; `skill-tools lint` shows the same error") from None
    if validate_schema:
        _validate(data, str(path))
    raw = data.get("tasks", []) if isinstance(data, dict) else data
    meta = {k: v for k, v in data.items() if k != "tasks"} if isinstance(data, dict) else {}
    tasks: dict[str, Task] = {}
    for i, item in enumerate(raw):
        if not isinstance(item, dict) or "id" not in item:
            raise InputError(str(path), f"task {i} has no id", hint="every task needs an 'id'")
        tid = str(item["id"])
        if tid in tasks:
            raise InputError(str(path), f"duplicate task id {tid!r}", hint="ids must be unique")
        tasks[tid] = Task(item)
    return TaskSet(tasks, meta, str(path))


def _validate(data: Any, source: str) -> None:
    try:
        import jsonschema
    except ImportError:  # pragma: no cover - jsonschema is a dependency
        return
    schema = json.loads(resources.files("skill_tools.schemas").joinpath("evals.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        err = min(errors, key=lambda e: len(list(e.absolute_path)))
        where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path)
        raise InputError(source, f"does not match evals.schema.json at {where}: {err.message[:200]}",
                         hint="run `skill-tools lint` for all schema errors")


def load_answers(path: str | Path) -> list[AnswerRecord]:
    p = Path(path)
    if not p.is_file():
        raise InputError(str(path), "answers file not found", hint="pass --answers FILE.jsonl")
    if p.stat().st_size > MAX_FILE_BYTES:
        raise InputError(str(path), f"answers file is larger than {MAX_FILE_BYTES} bytes", hint="split it")
    out: list[AnswerRecord] = []
    with p.open("rb") as fh:
        for n, raw in enumerate(fh, start=1):
            if len(raw) > MAX_LINE_BYTES:
                out.append(AnswerRecord(f"<line-{n}>", "unspecified", "", "", n,
                                        [Finding("limit", f"line {n} is {len(raw)} bytes (limit {MAX_LINE_BYTES}); not read")]))
                continue
            text = raw.decode("utf-8", errors="replace").strip()
            if not text or text.startswith("//"):
                continue
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                raise InputError(str(path), f"not a JSON object: {exc.msg}", line=n,
                                 hint='one object per line: {"id", "answer", "condition", "agent"}') from None
            if not isinstance(obj, dict):
                raise InputError(str(path), "each line must be a JSON object", line=n)
            out.append(_record(obj, n, p))
    if not out:
        raise InputError(str(path), "no answers in the file", hint='one JSON object per line with "id" and "answer"')
    return out


def _record(obj: dict[str, Any], n: int, path: Path) -> AnswerRecord:
    findings: list[Finding] = []
    raw_id = obj.get("id")
    if isinstance(raw_id, str) and ID_RE.match(raw_id):
        rid = raw_id
    else:
        rid = f"<invalid-id-line-{n}>"
        findings.append(Finding("security", f"answer id {ascii(raw_id)[:80]} is not a plain name "
                                            "(letters, digits, '.', '_', '-'); answer scored 0", n))
    condition = obj.get("condition", "unspecified")
    if condition not in CONDITIONS + ("unspecified",):
        findings.append(Finding("parse", f"unknown condition {ascii(condition)[:40]}; treated as 'unspecified'", n))
        condition = "unspecified"
    agent = obj.get("agent", "")
    agent = agent[:80] if isinstance(agent, str) else ""
    answer = obj.get("answer")
    if answer is None and "answer_file" in obj:
        answer = _answer_file(obj["answer_file"], path, n, findings)
    if not isinstance(answer, str):
        if answer is not None:
            findings.append(Finding("parse", "answer is not a string", n))
        answer = ""
    return AnswerRecord(rid, condition, agent, answer, n, findings)


def _answer_file(ref: Any, answers_path: Path, n: int, findings: list[Finding]) -> str | None:
    """Read ``answer_file`` only when it names a regular file inside the answers file's folder."""
    base = answers_path.resolve().parent
    if not isinstance(ref, str) or not ref or "\x00" in ref:
        findings.append(Finding("security", "answer_file is not a plain relative path; not read", n))
        return None
    rel = Path(ref)
    if rel.is_absolute() or ".." in rel.parts or ref.startswith("~"):
        findings.append(Finding("security", f"answer_file {ascii(ref)[:80]} leaves the answers folder; not read", n))
        return None
    target = (base / rel)
    try:
        resolved = target.resolve(strict=True)
    except (OSError, RuntimeError):
        findings.append(Finding("parse", f"answer_file {ascii(ref)[:80]} not found beside the answers file", n))
        return None
    if not resolved.is_relative_to(base) or not resolved.is_file():
        findings.append(Finding("security", f"answer_file {ascii(ref)[:80]} resolves outside the answers folder; not read", n))
        return None
    with resolved.open("r", encoding="utf-8", errors="replace") as fh:
        return fh.read(MAX_ANSWER_CHARS + 1)
