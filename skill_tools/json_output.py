"""What each command prints under ``--json``: its JSON Schema, the ``schema_version`` it carries,
and the caps that keep it bounded whatever the input's size.

Agents parse these documents, so every one names the version of its schema (published in
``skill_tools/schemas/``, draft 2020-12) and no list in it grows with the input without a bound:
a capped list ``X`` keeps its first items, ``X_total`` says how many there were, and the top-level
``truncated`` is true when any list or text was cut (the full data goes to a file where the
command writes one). Changes are additive: a new field keeps ``schema_version``; a field that
changes meaning or goes away bumps it.

This module sits at the bottom of the package (standard library only): commands call
:func:`emit`; tests and agents find a schema through :data:`OUTPUTS` or :func:`schema_for`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Mapping

#: Base of the schemas' ``$id``: a schema refers to another one by its file name.
SCHEMA_BASE = "https://github.com/megatron-cuda-graphs-skill/schemas/"


@dataclass(frozen=True)
class JsonOutput:
    """One command's --json document: its schema file and the version it describes."""

    schema: str
    version: int


#: Command (as typed after ``skill-tools``) -> its --json document. Every command or action that
#: accepts --json has an entry (tests/core/test_json_output_registry.py derives the list from
#: the argument parser). A refusal prints :data:`ERROR` instead, whatever the command.
OUTPUTS: dict[str, JsonOutput] = {
    "lint": JsonOutput("lint.schema.json", 1),
    "validate": JsonOutput("validate.schema.json", 1),
    "apply": JsonOutput("apply.schema.json", 1),
    "recommend": JsonOutput("recommend.schema.json", 1),
    "logs": JsonOutput("logs.schema.json", 1),  # commands/logs.py SCHEMA_VERSION
    "bench": JsonOutput("bench.schema.json", 1),
    "precheck": JsonOutput("precheck.schema.json", 1),
    "evals score": JsonOutput("evals-score.schema.json", 1),
    "evals run": JsonOutput("evals-score.schema.json", 1),
    "card sync": JsonOutput("card-sync.schema.json", 1),
}

#: The error document every command prints under --json when it refuses (commands/_common.py).
ERROR = JsonOutput("error.schema.json", 1)

#: Items a capped list keeps on standard output (files written with --json-out/--out keep all).
MAX_ITEMS = 100
#: Characters a capped text (a diff) keeps.
MAX_TEXT = 100_000


def document(command: str, doc: Mapping[str, Any], *, kind: str | None = None,
             caps: Mapping[str, int] | None = None) -> dict[str, Any]:
    """``doc`` as ``command``'s --json document: ``schema_version`` (and ``kind``) first, the
    lists and texts named in ``caps`` cut to their limit with ``X_total`` and ``truncated``."""
    out: dict[str, Any] = {"schema_version": OUTPUTS[command].version}
    if kind is not None:
        out["kind"] = kind
    out.update((k, v) for k, v in doc.items() if k not in out)
    if caps:
        out["truncated"] = cap(out, caps)
    return out


def cap(doc: dict[str, Any], caps: Mapping[str, int]) -> bool:
    """Cut each list or text ``doc[key]`` to ``caps[key]`` items/characters, in place, and record
    its length as ``doc[key + "_total"]``; True when anything was cut."""
    cut = False
    for key, limit in caps.items():
        value = doc.get(key)
        if not isinstance(value, (list, str)):
            continue
        doc[f"{key}_total"] = len(value)
        if len(value) > limit:
            doc[key] = value[:limit]
            cut = True
    return cut


#: Steps a bench results variant keeps in its per-step lists on standard output (the results file keeps all).
MAX_STEPS = 1_000
STEP_LISTS = ("raw_step_ms", "losses")


def results_payload(doc: Mapping[str, Any], files: Mapping[str, Any]) -> dict[str, Any]:
    """``{"results", "files", "truncated"}`` of a bench run: the results document with each
    variant's per-step lists capped at :data:`MAX_STEPS` (``--steps`` has no upper bound)."""
    variants = [dict(v) for v in doc.get("variants", [])]
    cut = [cap(v, {key: MAX_STEPS for key in STEP_LISTS if key in v}) for v in variants]
    return {"results": {**doc, "variants": variants}, "files": {k: str(v) for k, v in files.items()},
            "truncated": any(cut)}


def emit(command: str, doc: Mapping[str, Any], *, kind: str | None = None, caps: Mapping[str, int] | None = None,
         indent: int = 2) -> None:
    """Print ``command``'s --json document for ``doc`` on standard output."""
    print(json.dumps(document(command, doc, kind=kind, caps=caps), indent=indent, default=str))


def schema_text(name: str) -> str:
    """The text of ``skill_tools/schemas/NAME`` as installed."""
    return resources.files("skill_tools.schemas").joinpath(name).read_text(encoding="utf-8")


def schema_for(command: str) -> dict[str, Any]:
    """The JSON Schema of ``command``'s --json document (``error`` for the error document)."""
    entry = ERROR if command == "error" else OUTPUTS[command]
    return json.loads(schema_text(entry.schema))


def validator(command: str):
    """A draft 2020-12 validator of ``command``'s document that resolves references between the
    package's schemas by file name (``plan.schema.json``). Needs jsonschema."""
    import jsonschema
    from referencing import Registry, Resource

    registry = Registry()
    for path in resources.files("skill_tools.schemas").iterdir():
        if path.name.endswith(".schema.json"):
            resource = Resource.from_contents(json.loads(path.read_text(encoding="utf-8")),
                                              default_specification=_draft202012())
            registry = registry.with_resource(SCHEMA_BASE + path.name, resource)
    schema = schema_for(command)
    return jsonschema.Draft202012Validator(schema, registry=registry)


def _draft202012():
    from referencing.jsonschema import DRAFT202012

    return DRAFT202012
