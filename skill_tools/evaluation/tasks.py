"""Read the task set and the answers file; both are checked before anything is scored.

The task set may come in any layout the NVSkills catalog uses (:func:`task_items` is the one
reader every caller shares: the scorer, ``skill-tools lint``, the card and exports):

- a top-level list of tasks (``id``, ``question``, ``expected_skill``, ``ground_truth``,
  ``expected_behavior``; this project's own ``evals/evals.json``);
- ``{"skill_name", "evals": [{"id", "prompt", "expected_output", "assertions"}]}``;
- ``{"tasks": [...]}`` (this project's older layout).

A missing ``should_trigger`` is derived from ``expected_skill``: null means the skill must not
trigger (a negative task). The task set is schema-checked. The answers file is untrusted: each
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

from skill_tools.config import limits
from skill_tools.errors import InputError
from skill_tools.evaluation.extract import MAX_ANSWER_CHARS, Finding

ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
CONDITIONS = ("with_skill", "without_skill")
MAX_LINE_BYTES = 1_000_000
MAX_FILE_BYTES = 200_000_000


@dataclass
class Task:
    data: dict[str, Any]
    root: Path | None = None  # the task set's folder: a task's workspace and base files lie inside it

    @property
    def id(self) -> str:
        return str(self.data["id"])

    @property
    def should_trigger(self) -> bool:
        return bool(self.data["should_trigger"]) if "should_trigger" in self.data else True

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
    files: dict[str, str] = field(default_factory=dict)  # workspace files the agent changed (evals run)
    deleted: list[str] = field(default_factory=list)

    @property
    def rejected(self) -> bool:
        return any(f.kind == "security" for f in self.findings)


LAYOUTS = ("list", "skill_evals", "tasks_object")


def layout_of(data: Any) -> str | None:
    """``list`` | ``skill_evals`` | ``tasks_object``, or None for a shape no NVSkills dataset has."""
    if isinstance(data, list):
        return "list"
    if isinstance(data, dict) and isinstance(data.get("evals"), list):
        return "skill_evals"
    if isinstance(data, dict) and isinstance(data.get("tasks"), list):
        return "tasks_object"
    return None


def task_items(data: Any) -> tuple[list[tuple[list[Any], dict[str, Any]]], dict[str, Any]]:
    """Every task of any layout as ``(json_path, task)`` in the NVSkills list form, plus metadata.

    ``json_path`` locates the task in the original document (for error positions). Tasks are
    normalised copies: ``prompt``/``expected_output``/``assertions`` become ``question``/
    ``ground_truth``/``expected_behavior``, ids become strings, and ``should_trigger`` is
    filled in from ``expected_skill`` where it is missing.
    """
    layout = layout_of(data)
    if layout == "list":
        raw, prefix, meta = data, [], {}
    elif layout == "skill_evals":
        raw, prefix = data["evals"], ["evals"]
        meta = {k: v for k, v in data.items() if k != "evals"}
    elif layout == "tasks_object":
        raw, prefix = data["tasks"], ["tasks"]
        meta = {k: v for k, v in data.items() if k != "tasks"}
    else:
        return [], {}
    skill = meta.get("skill_name") or meta.get("skill")
    out = []
    for i, item in enumerate(raw):
        if isinstance(item, dict):
            out.append((prefix + [i], normalise_task(item, skill if layout == "skill_evals" else None)))
    return out, meta


def normalise_task(item: dict[str, Any], skill_name: str | None = None) -> dict[str, Any]:
    """One task in the NVSkills list form (a copy; the input is not changed)."""
    task = dict(item)
    if "question" not in task and "prompt" in task:
        task["question"] = task.pop("prompt")
    if "ground_truth" not in task and "expected_output" in task:
        task["ground_truth"] = task.pop("expected_output")
    if "expected_behavior" not in task and "assertions" in task:
        task["expected_behavior"] = [a.get("text", "") if isinstance(a, dict) else str(a)
                                     for a in task.pop("assertions") or []]
    if "id" in task and not isinstance(task["id"], str):
        task["id"] = str(task["id"])
    if skill_name and "expected_skill" not in task:
        task["expected_skill"] = skill_name  # {skill_name, evals}: an eval without the key is the skill's own
    if "should_trigger" not in task:
        task["should_trigger"] = task.get("expected_skill", True) is not None
    task.setdefault("expected_behavior", [])
    task.setdefault("ground_truth", "")
    return task


_SHAPES = ("a JSON list of tasks {id, question, expected_skill, ground_truth, expected_behavior}, "
           "or {skill_name, evals: [{id, prompt, expected_output, assertions}]}")


def load_tasks(path: str | Path, *, validate_schema: bool = True) -> TaskSet:
    p = Path(path)
    if not p.is_file():
        raise InputError(str(path), "eval task set not found", hint="pass --evals PATH (default evals/evals.json)")
    text = p.read_text(encoding="utf-8", errors="replace")
    if limits.bracket_depth(text) > limits.MAX_NESTING:
        raise InputError(str(path), f"JSON nests more than {limits.MAX_NESTING} levels deep; not an eval task set")
    try:
        data = json.loads(text, parse_int=_bounded_int)
    except json.JSONDecodeError as exc:
        raise InputError(str(path), f"JSON syntax error: {exc.msg} (column {exc.colno})", line=exc.lineno,
                         hint="fix the JSON at that line and column") from None
    except ValueError as exc:
        raise InputError(str(path), str(exc)) from None
    if layout_of(data) is None:
        raise InputError(str(path), f"not an eval task set: top level is {type(data).__name__}"
                         + (f" with keys {', '.join(sorted(map(str, data))[:6])}" if isinstance(data, dict) else ""),
                         hint=f"expected {_SHAPES}")
    if validate_schema:
        _validate(data, str(path))
    items, meta = task_items(data)
    tasks: dict[str, Task] = {}
    for where, item in items:
        if not item.get("id"):
            raise InputError(str(path), f"task at {_json_path(where)} has no id", hint="every task needs an 'id'")
        tid = str(item["id"])
        if tid in tasks:
            raise InputError(str(path), f"duplicate task id {tid!r} at {_json_path(where)}",
                             hint="ids must be unique within the file")
        tasks[tid] = Task(item, p.resolve().parent)
    if not tasks:
        raise InputError(str(path), "the task set has no tasks", hint=f"expected {_SHAPES}")
    return TaskSet(tasks, meta, str(path))


def _json_path(parts: list[Any]) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts)


def schema_errors(data: Any) -> list[Any]:
    """jsonschema errors of ``data`` against evals.schema.json (every layout), outermost first."""
    try:
        import jsonschema
    except ImportError:  # pragma: no cover - jsonschema is a dependency
        return []
    schema = json.loads(resources.files("skill_tools.schemas").joinpath("evals.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    return sorted(validator.iter_errors(data), key=lambda e: (len(list(e.absolute_path)), list(map(str, e.absolute_path))))


def _validate(data: Any, source: str) -> None:
    errors = schema_errors(data)
    if errors:
        err = errors[0]
        parts = list(err.absolute_path)
        task_id = None
        if parts and isinstance(parts[0], int) and isinstance(data, list):
            task_id = data[parts[0]].get("id") if isinstance(data[parts[0]], dict) else None
        elif len(parts) > 1 and isinstance(data, dict) and isinstance(parts[1], int):
            item = data[parts[0]][parts[1]]
            task_id = item.get("id") if isinstance(item, dict) else None
        what = f" (task {task_id!r})" if task_id is not None else ""
        more = f"; {len(errors) - 1} more problem(s)" if len(errors) > 1 else ""
        raise InputError(source, f"{_json_path(parts)}{what}: {err.message[:200]}{more}",
                         hint=f"an eval task set is {_SHAPES}; the fields are described in "
                              "skill_tools/schemas/evals.schema.json of the skill-tools package")


def _bounded_int(digits: str) -> int:
    if len(digits) > limits.MAX_INT_DIGITS:
        raise ValueError(f"integer of {len(digits)} digits (limit {limits.MAX_INT_DIGITS})")
    return int(digits)


def load_answers(path: str | Path) -> list[AnswerRecord]:
    import io

    from skill_tools.input_file import decode, encoding_of, read_bytes

    data = read_bytes(path, limit=MAX_FILE_BYTES, what="answers file")  # bounded; any path refused in one line
    if encoding_of(data) not in ("utf-8", None):  # a BOM, or UTF-16/32 text: read as the text it is
        data = decode(data, str(path), what="answers file").encode("utf-8", "surrogatepass")
    out: list[AnswerRecord] = []
    with io.BytesIO(data) as fh:
        for n, raw in enumerate(fh, start=1):
            if len(raw) > MAX_LINE_BYTES:
                out.append(AnswerRecord(f"<line-{n}>", "unspecified", "", "", n,
                                        [Finding("limit", f"line {n} is {len(raw)} bytes (limit {MAX_LINE_BYTES}); not read")]))
                continue
            text = raw.decode("utf-8", errors="replace").strip()
            if not text or text.startswith("//"):
                continue
            depth = limits.bracket_depth(text)
            if depth > limits.MAX_NESTING:
                out.append(AnswerRecord(f"<line-{n}>", "unspecified", "", "", n,
                                        [Finding("limit", f"line {n} nests {depth} levels deep "
                                                          f"(limit {limits.MAX_NESTING}); not read")]))
                continue
            try:
                obj = json.loads(text, parse_int=_bounded_int)
            except json.JSONDecodeError as exc:
                raise InputError(str(path), f"not a JSON object: {exc.msg}", line=n,
                                 hint='one object per line: {"id", "answer", "condition", "agent"}') from None
            except ValueError as exc:  # an integer too long to be a value
                out.append(AnswerRecord(f"<line-{n}>", "unspecified", "", "", n,
                                        [Finding("limit", f"line {n}: {exc}; not read")]))
                continue
            if not isinstance(obj, dict):
                raise InputError(str(path), "each line must be a JSON object", line=n)
            out.append(_record(obj, n, Path(path)))
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
    files, deleted = _workspace_changes(obj.get("workspace_changes"), n, findings)
    return AnswerRecord(rid, condition, agent, answer, n, findings, files, deleted)


MAX_CHANGED_FILES = 20


def _workspace_changes(raw: Any, n: int, findings: list[Finding]) -> tuple[dict[str, str], list[str]]:
    """``workspace_changes`` as ``evals run`` records it: plain relative paths to text, bounded."""
    if raw is None:
        return {}, []
    files = raw.get("files") if isinstance(raw, dict) else None
    deleted = raw.get("deleted") if isinstance(raw, dict) else None
    if not isinstance(files, dict) or not isinstance(deleted or [], list):
        findings.append(Finding("parse", "workspace_changes is not {files: {path: text}, deleted: [path]}; not read", n))
        return {}, []
    out: dict[str, str] = {}
    for rel, text in list(files.items())[:MAX_CHANGED_FILES]:
        p = Path(str(rel))
        if not isinstance(text, str) or p.is_absolute() or ".." in p.parts or "\x00" in str(rel) or not str(rel):
            findings.append(Finding("parse", f"workspace file {ascii(rel)[:80]} is not a plain relative path to text; not read", n))
            continue
        out[p.as_posix()] = text[:MAX_ANSWER_CHARS]
    return out, [str(d)[:200] for d in (deleted or [])[:MAX_CHANGED_FILES]]


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
