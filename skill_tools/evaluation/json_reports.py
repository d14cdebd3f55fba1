"""A structured JSON answer (a report an agent was asked to emit) read as the Markdown it stands for.

Agents told to answer in JSON write a report, not a config: ``{"diagnosis": "…", "options": [{"name":
"keep the graphs…", "changes": {"model.recompute_modules": […]}, "notes": ["…"]}], "do_not": ["…"],
"verify": "…"}``. Read as one config document, its prose becomes settings ("model.diagnosis") and
its options merge into one config. :func:`as_markdown` renders such a report as the Markdown an
agent would have written: each prose field a labelled paragraph or list, each settings mapping a
fenced JSON block, each entry of an options list an "### Option N: name" section (the first the
recommendation, later ones alternatives, as :mod:`options` reads labelled options). A key naming one
setting per era ("model.cuda_graph_modules (0.18+) / model.cuda_graph_scope (0.16-0.17)") becomes a
line that names each key with its era. A JSON config (no prose in it) is left as it is.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

from skill_tools.config.limits import load_yaml
from skill_tools.errors import InputError
from skill_tools.evaluation.envelopes import RESULT_KEY, SOURCE_KEY
from skill_tools.evaluation.overrides_dict import render

_MAX_CHARS = 200_000
_MAX_DEPTH = 6
_FENCED = re.compile(r"^```(?:json|jsonc)?[ \t]*\n(.*)\n```[ \t]*$", re.S)
_FENCED_YAML = re.compile(r"^```ya?ml[ \t]*\n(.*)\n```[ \t]*$", re.S)
#: A string that is prose: several words ("recomputes only the expert activation, which …").
_PROSE = re.compile(r"\S+(?:\s+\S+){4,}")
#: A settings key: an identifier or a dotted path ("model.cuda_graph_impl", "NCCL_GRAPH_REGISTER", "--x").
_KEY = re.compile(r"^(?:--)?[A-Za-z_][\w-]*(?:\.[\w-]+)*$")
#: A key that names one setting per era: "model.cuda_graph_modules (0.18+) / model.cuda_graph_scope (0.16-0.17)".
_ERA_KEY = re.compile(r"([A-Za-z_][\w.]*)\s*\(([^()]*\d[^()]*)\)")
#: A list whose entries are options: "options", "fix_options", "alternatives", "choices", "plans".
_OPTIONS = re.compile(r"option|alternative|choice|plan|approach|fix|solution|path|remed", re.I)
_NAME_FIELDS = ("name", "title", "label", "option", "summary", "id")
#: A config's comment field: "_comment_choice", "$comment", "//", "description".
_COMMENT_KEY = re.compile(r"^(?:[_$#/]|(?:comments?|description|notes?)$)", re.I)
_MIN_PROSE = 2  # one "_comment" string in a config is no report


#: A YAML document is a report only when it says so at its top level: a config, a CI file or a
#: manifest also carries strings of several words (a ``run:`` script, a ``description:``).
_REPORT_KEY = re.compile(r"^(?:diagnosis|cause|root_?cause|summary|answer|explanation|analysis|problem|issue|verdict|"
                         r"findings?|recommendations?|(?:fix_|recommended_)?options|alternatives|why|rationale)$", re.I)


@lru_cache(maxsize=256)  # extract and score both read the answer through it
def as_markdown(text: str) -> str | None:
    """The Markdown a JSON report (or a YAML one, keyed as a report) stands for; None when ``text``
    is not one (not a mapping, or a config with no prose in it)."""
    body = text.strip()
    fenced = _FENCED.match(body) or _FENCED_YAML.match(body)
    body = fenced.group(1) if fenced else body
    if len(body) > _MAX_CHARS:
        return None
    doc = _json(body) if body.startswith("{") else _yaml_report(body)
    if not isinstance(doc, dict) or _prose_count(doc, 0) < _MIN_PROSE:
        return None
    out: list[str] = []
    _mapping(doc, 2, out)
    return "\n".join(out).strip() + "\n"


def _json(body: str) -> object:
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        return None


def _yaml_report(body: str) -> object:
    """A YAML mapping whose top level has a report's key ("diagnosis:", "options:"), else None."""
    if "\n" not in body or "```" in body or not re.match(r"^[A-Za-z_][\w-]*:(?:\s|$)", body):
        return None
    import yaml

    try:
        doc, _ = load_yaml(body, "<answer>")  # the readers' bounded loader: aliases, nesting, size
    except (yaml.YAMLError, InputError):  # not YAML, or not a document to read: no report
        return None
    return doc if isinstance(doc, dict) and any(_REPORT_KEY.match(str(k)) for k in doc) else None


def _prose_count(value: object, depth: int) -> int:
    if depth > _MAX_DEPTH:
        return 0
    if isinstance(value, str):
        return 1 if _PROSE.search(value) else 0
    if isinstance(value, dict):  # a config's own comments ("_comment", "$comment") make no report
        return sum(_prose_count(v, depth + 1) for k, v in value.items() if not _COMMENT_KEY.match(str(k)))
    if isinstance(value, list):
        return sum(_prose_count(v, depth + 1) for v in value)
    return 0


def _is_settings(value: object) -> bool:
    """A mapping of settings: every key a settings key, no prose in its values, something in it."""
    return isinstance(value, dict) and bool(value) and all(isinstance(k, str) for k in value) and \
        _prose_count(value, 0) == 0 and all(_KEY.match(k) or _ERA_KEY.search(k) for k in value)


def _label(key: str) -> str:
    words = key.replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def _settings(value: dict, out: list[str]) -> None:
    """A settings mapping as a fenced JSON block; its per-era keys as one line each."""
    plain = {k: v for k, v in value.items() if _KEY.match(k)}
    if plain:
        out += ["```json", json.dumps(plain, indent=2), "```", ""]
    for key, v in value.items():
        if key not in plain:
            sides = [f"`{m.group(1)}={render(v)}` ({m.group(2).strip()})" for m in _ERA_KEY.finditer(key)]
            out += ["- " + " / ".join(sides), ""]


def _mapping(doc: dict, level: int, out: list[str]) -> None:
    if level > _MAX_DEPTH + 2:
        return
    loose = {k: v for k, v in doc.items() if isinstance(k, str) and _KEY.match(k) and ("." in k or k.isupper()) and
             not isinstance(v, dict) and _prose_count(v, 0) == 0 and not (isinstance(v, list) and any(isinstance(i, dict) for i in v))}
    if loose:  # settings written among the prose fields ("model.cuda_graph_impl": "local")
        _settings(loose, out)
    for key, value in doc.items():
        if key in loose:
            continue
        if _is_settings(value):  # "original_config" / "fixed_config": labelled as the old and the new side
            side = "Before (old, replaced)" if SOURCE_KEY.match(key) else "After (use this)" if RESULT_KEY.match(key) else ""
            out += [f"**{side or _label(key)}:**", ""]
            _settings(value, out)
        elif isinstance(value, dict):
            out += ["#" * min(level, 6) + " " + _label(key), ""]
            _mapping(value, level + 1, out)
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            _entries(key, value, level, out)
        elif isinstance(value, list):
            out += [f"**{_label(key)}:**", ""] + [f"- {_text(v)}" for v in value] + [""]
        elif isinstance(value, str) and "\n" in value:
            out += [f"**{_label(key)}:**", "", value, ""]
        else:
            out += [f"**{_label(key)}:** {_text(value)}", ""]


def _entries(key: str, items: list[dict], level: int, out: list[str]) -> None:
    """A list of objects: an options list as labelled options, any other as numbered sections."""
    opts = bool(_OPTIONS.search(key))
    out += ["#" * min(level, 6) + " " + _label(key), ""]
    for n, item in enumerate(items, 1):
        name = next((str(item[f]) for f in _NAME_FIELDS if isinstance(item.get(f), (str, int))), "")
        title = f"Option {n}: {name}" if opts else f"{_label(key)} {n}{': ' + name if name else ''}"
        out += ["#" * min(level + 1, 6) + " " + title.rstrip(": "), ""]
        _mapping({k: v for k, v in item.items() if not (name and k in _NAME_FIELDS and str(v) == name)}, level + 2, out)


def _text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
