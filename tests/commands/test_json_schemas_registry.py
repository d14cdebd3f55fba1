"""The --json schema registry (skill_tools/json_output.py): every command or action that accepts
--json has a published schema, each schema is valid draft 2020-12 and describes the version the
registry names, the package ships them, and the caps keep documents bounded."""

from __future__ import annotations

import argparse
import fnmatch
import json
import tomllib
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from skill_tools.cli import _available, build_parser
from skill_tools.json_output import (ERROR, MAX_ITEMS, MAX_STEPS, OUTPUTS, SCHEMA_BASE, document, results_payload,
                                     schema_for, schema_text, validator)

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = REPO / "skill_tools" / "schemas"


def _json_commands(parser: argparse.ArgumentParser, prefix: str = "") -> set[str]:
    """Every command path (``validate``, ``evals score``) whose parser has a --json option."""
    found = set()
    if any("--json" in action.option_strings for action in parser._actions) and prefix:
        found.add(prefix)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found |= _json_commands(sub, f"{prefix} {name}".strip())
    return found


def test_every_command_that_accepts_json_has_a_schema():
    commands = _json_commands(build_parser(_available()))
    assert {"validate", "logs", "evals score", "card sync"} <= commands  # the walk reaches actions too
    assert commands == set(OUTPUTS), "a command accepts --json without an entry in json_output.OUTPUTS (or the reverse)"


@pytest.mark.parametrize("name", sorted(p.name for p in SCHEMAS.glob("*.schema.json")))
def test_schema_files_are_valid_draft_2020_12(name):
    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema.get("title") and schema.get("$id")


def _version_consts(node) -> set[int]:
    """The ``const`` of every ``schema_version`` property (or ``$defs/version``) in a schema."""
    found = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("schema_version", "version") and isinstance(value, dict) and "const" in value:
                found.add(value["const"])
            found |= _version_consts(value)
    elif isinstance(node, list):
        for value in node:
            found |= _version_consts(value)
    return found


@pytest.mark.parametrize("command", sorted(OUTPUTS) + ["error"])
def test_registry_schema_describes_the_registered_version(command):
    entry = ERROR if command == "error" else OUTPUTS[command]
    schema = schema_for(command)
    assert _version_consts(schema) == {entry.version}
    assert schema.get("description"), f"{entry.schema} has no description"
    if command != "error":
        assert f"schema_version {entry.version}" in schema["description"]


def test_schemas_share_one_id_base_so_references_resolve_by_file_name():
    for name in [e.schema for e in OUTPUTS.values()] + [ERROR.schema, "plan.schema.json"]:
        if name != "logs.schema.json":  # its own base; it references no other schema
            assert json.loads(schema_text(name))["$id"] == SCHEMA_BASE + name


def test_logs_registry_version_is_the_one_logs_prints():
    from skill_tools.commands.logs import SCHEMA_VERSION

    assert OUTPUTS["logs"].version == SCHEMA_VERSION


def test_package_data_ships_every_schema():
    data = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = data["tool"]["setuptools"]["package-data"]["skill_tools"]
    for entry in [*OUTPUTS.values(), ERROR]:
        assert (SCHEMAS / entry.schema).is_file()
        assert any(fnmatch.fnmatch(f"schemas/{entry.schema}", p) for p in patterns), entry.schema


def test_document_puts_the_version_first_and_caps_lists_and_texts():
    doc = document("validate", {"ok": True, "findings": list(range(MAX_ITEMS + 5))}, caps={"findings": MAX_ITEMS})
    assert list(doc)[0] == "schema_version" and doc["schema_version"] == OUTPUTS["validate"].version
    assert len(doc["findings"]) == MAX_ITEMS and doc["findings_total"] == MAX_ITEMS + 5 and doc["truncated"] is True
    small = document("apply", {"diff": "abc", "findings": []}, caps={"diff": 2, "findings": 3})
    assert small["diff"] == "ab" and small["diff_total"] == 3 and small["findings_total"] == 0
    assert small["truncated"] is True
    assert document("lint", {"findings": []}, caps={"findings": 1})["truncated"] is False


def test_a_long_bench_run_is_capped_on_stdout_and_still_valid():
    """A real results document, its per-step lists stretched as a 20,000-step --steps run would make them."""
    real = json.loads((REPO / "benchmarks/results/2026-12-02-training-h200-dense-tiny-ab-200steps.json").read_text())
    for variant in real["variants"]:
        variant["raw_step_ms"] = variant["raw_step_ms"] * 100
        variant["losses"] = variant["losses"] * 100
    doc = document("bench", results_payload(real, {"json": "out.json"}), kind="results")
    assert doc["truncated"] is True
    for variant in doc["results"]["variants"]:
        assert len(variant["raw_step_ms"]) == MAX_STEPS and variant["raw_step_ms_total"] > MAX_STEPS
    assert len(real["variants"][0]["raw_step_ms"]) > MAX_STEPS  # the caller's document is left whole
    errors = list(validator("bench").iter_errors(json.loads(json.dumps(doc))))
    assert not errors, errors[0].message[:300]
    assert len(json.dumps(doc)) < 1_000_000
