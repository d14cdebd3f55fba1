"""Lint the skill package itself: SKILL.md frontmatter, card.yaml, evals/evals.json, links.

Every problem becomes one :class:`LintFinding` naming the file, the line or JSON path, and
what is expected, so a broken package gives a readable list instead of a traceback.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Iterator

import yaml

from skill_tools.errors import InputError

SKILL_MAX_LINES = 500
#: Markdown files whose relative links must resolve.
LINKED_DOCS = ("SKILL.md", "README.md", "BENCHMARK.md", "skill-card.md", "references/*.md", "evals/README.md")
#: Inline `code` spans under these project folders are checked too. `tests/`, `examples/` and
#: `scripts/` are left out: upstream Megatron paths cited in the docs start with them as well.
PATH_PREFIXES = ("references/", "evals/", "skill_tools/", "benchmarks/")


@dataclass(frozen=True)
class LintFinding:
    file: str
    message: str
    line: int | None = None
    path: str | None = None  # JSON path inside the file, e.g. $.tasks[3].id
    #: "error" fails lint; "warning" (what the catalog's evaluator would report) and "info" (a check
    #: that could not apply here, with the reason) are printed but do not fail it.
    severity: str = "error"

    def __str__(self) -> str:
        where = self.file + (f":{self.line}" if self.line else "")
        at = f" at {self.path}" if self.path else ""
        level = "" if self.severity == "error" else f"{self.severity}: "
        return f"{where}{at}: {level}{self.message}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def load_schema(name: str) -> dict[str, Any]:
    text = resources.files("skill_tools.schemas").joinpath(name).read_text(encoding="utf-8")
    return json.loads(text)


# ----------------------------------------------------------------------------------------------
# reading with positions
# ----------------------------------------------------------------------------------------------


def _read_text(path: Path, rel: str) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(rel, f"cannot read: {exc.strerror or exc}") from None
    if b"\x00" in raw[:8192]:
        raise InputError(rel, "is a binary file, expected UTF-8 text")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(rel, f"is not UTF-8 text (byte {exc.start})") from None


def _node_line(node: yaml.Node | None, path: list[Any]) -> int | None:
    """1-based line of the node at ``path`` (keys/indices), or of its deepest existing parent."""
    line = node.start_mark.line + 1 if node is not None else None
    for part in path:
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if isinstance(k, yaml.ScalarNode) and k.value == str(part):
                    node = v
                    line = k.start_mark.line + 1
                    break
            else:
                return line
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            return line
    return line


def _json_path(parts: Iterable[Any]) -> str:
    out = "$"
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


def _parse_yaml(text: str, rel: str, line_offset: int = 0) -> tuple[Any, yaml.Node | None, list[LintFinding]]:
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 + line_offset if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return None, None, [LintFinding(rel, f"YAML syntax error: {problem}", line=line)]
    return data, node, []


def _schema_findings(data: Any, schema: dict[str, Any], rel: str, node: yaml.Node | None,
                     line_offset: int = 0) -> list[LintFinding]:
    import jsonschema  # imported here: only lint needs it

    validator = jsonschema.Draft202012Validator(schema)
    out = []
    for err in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path))):
        parts = list(err.absolute_path)
        line = _node_line(node, parts)
        out.append(LintFinding(rel, _explain(err), line=(line + line_offset) if line else None,
                               path=_json_path(parts)))
    return out


def _explain(err: Any) -> str:
    """jsonschema messages, phrased as what is expected."""
    v = err.validator
    if v == "required":
        missing = re.findall(r"'([^']+)' is a required property", err.message)
        return f"missing required field {missing[0]!r}" if missing else err.message
    if v == "additionalProperties":
        return f"{err.message} (allowed: {', '.join(sorted(err.schema.get('properties', {})))})"
    if v == "pattern":
        return f"{err.instance!r} does not match the expected pattern {err.validator_value!r}"
    if v == "maxLength":
        return f"is {len(err.instance)} characters, expected at most {err.validator_value}"
    if v == "minLength":
        return f"is empty or too short, expected at least {err.validator_value} character(s)"
    if v == "type":
        return f"expected {err.validator_value}, got {type(err.instance).__name__} {err.instance!r}"[:200]
    if v in ("oneOf", "anyOf"):
        return f"{str(err.instance)[:80]!r} is not of an expected shape ({err.schema.get('description', 'see schema')})"
    if v == "enum":
        return f"{err.instance!r} is not one of {err.validator_value}"
    return err.message


# ----------------------------------------------------------------------------------------------
# the checks
# ----------------------------------------------------------------------------------------------


_FRONTMATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(\r?\n|\Z)", re.S)


def check_skill_md(root: Path) -> tuple[dict[str, Any] | None, list[LintFinding]]:
    rel = "SKILL.md"
    path = root / rel
    if not path.is_file():
        return None, [LintFinding(rel, "missing: a skill needs SKILL.md with YAML frontmatter at its root")]
    text = _read_text(path, rel)
    out: list[LintFinding] = []
    lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    if lines >= SKILL_MAX_LINES:
        out.append(LintFinding(rel, f"has {lines} lines, expected under {SKILL_MAX_LINES} "
                                    "(move detail to references/)"))
    m = _FRONTMATTER.match(text)
    if not m:
        out.append(LintFinding(rel, "no YAML frontmatter: expected the file to start with '---', "
                                    "name/description fields, and a closing '---'", line=1))
        return None, out
    data, node, errs = _parse_yaml(m.group(1), rel, line_offset=1)
    out += errs
    if errs:
        return None, out
    if not isinstance(data, dict):
        out.append(LintFinding(rel, "frontmatter must be a mapping of fields (name, description, ...)", line=2))
        return None, out
    out += _schema_findings(data, load_schema("skill_frontmatter.schema.json"), rel, node, line_offset=1)
    return data, out


def check_card(root: Path) -> list[LintFinding]:
    rel = "card.yaml"
    path = root / rel
    if not path.is_file():
        return [LintFinding(rel, "missing: the skill card (see skill_tools/schemas/card.schema.json)")]
    data, node, errs = _parse_yaml(_read_text(path, rel), rel)
    if errs:
        return errs
    if not isinstance(data, dict):
        return [LintFinding(rel, "must be a mapping of card fields", line=1)]
    return _schema_findings(data, load_schema("card.schema.json"), rel, node)


def check_evals(root: Path, skill_name: str | None) -> list[LintFinding]:
    rel = "evals/evals.json"
    path = root / rel
    if not path.is_file():
        return [LintFinding(rel, "missing: the eval task set")]
    text = _read_text(path, rel)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return [LintFinding(rel, f"JSON syntax error: {exc.msg} (column {exc.colno})", line=exc.lineno)]
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)  # positions only
    except yaml.YAMLError:
        node = None
    out: list[LintFinding] = []
    try:
        schema = load_schema("evals.schema.json")
    except FileNotFoundError:
        out.append(LintFinding("skill_tools/schemas/evals.schema.json", "missing: cannot check evals.json"))
    else:
        out += _schema_findings(data, schema, rel, node)
    from skill_tools.evaluation.tasks import task_items  # the one reader of every NVSkills layout

    seen: dict[str, int] = {}
    for where, task in task_items(data)[0]:
        i = where[-1]
        tid = task.get("id")
        if isinstance(tid, str):
            if tid in seen:
                out.append(LintFinding(rel, f"duplicate id {tid!r} (first at index {seen[tid]}); "
                                            "ids must be unique", line=_node_line(node, where + ["id"]),
                                       path=_json_path(where + ["id"])))
            else:
                seen[tid] = i
        exp = task.get("expected_skill")
        if skill_name and task.get("should_trigger") is True and exp not in (None, skill_name):
            out.append(LintFinding(rel, f"expected_skill {exp!r} does not match the skill name {skill_name!r}",
                                   line=_node_line(node, where + ["expected_skill"]),
                                   path=_json_path(where + ["expected_skill"])))
    return out


_MD_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|!\[[^\]]*\]\(([^)\s]+)\)")
_CODE_SPAN = re.compile(r"`([^`\s]+)`")
_FENCE = re.compile(r"^\s*(```|~~~)")


def _doc_files(root: Path) -> Iterator[Path]:
    for pattern in LINKED_DOCS:
        yield from sorted(root.glob(pattern))


def check_links(root: Path) -> list[LintFinding]:
    """Relative links and `path/like/this` code spans in the docs must point at existing files."""
    out = []
    for doc in _doc_files(root):
        rel = doc.relative_to(root).as_posix()
        in_fence = False
        for lineno, line in enumerate(_read_text(doc, rel).splitlines(), 1):
            if _FENCE.match(line):
                in_fence = not in_fence
                continue
            if in_fence:
                continue
            links = [a or b for a, b in _MD_LINK.findall(line)]
            spans = [t for t in _CODE_SPAN.findall(line)
                     if t.startswith(PATH_PREFIXES) and not set(t) & set("*<>{}")]
            for target, bases in [(t, (doc.parent,)) for t in links] + [(t, (doc.parent, root)) for t in spans]:
                if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                    continue  # URL or in-page anchor
                file_part = target.split("#", 1)[0]
                if file_part and not any((base / file_part).exists() for base in bases):
                    out.append(LintFinding(rel, f"link target {target!r} does not exist", line=lineno))
    return out
