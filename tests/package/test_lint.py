"""`skill-tools lint`: clean on a valid package, one clear line per problem on broken copies."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skill_tools.cli import main
from skill_tools.package.lint import lint

SKILL = """---
name: demo-skill
description: Use when enabling CUDA graphs in Megatron. Not for torch.compile.
license: Apache-2.0
metadata:
  author: "Demo Team <demo@example.com>"
  version: "1"
---
# Demo
See [versions](references/versions.md) and `references/versions.md`.
## Instructions
Do the thing.
## Examples
An example.
"""

CARD_FIELDS = [
    "title", "validated_on", "summary", "validation_status", "training_dimensions", "enable_when",
    "avoid_when", "interactions", "feature_meaning", "config_keys", "recommended_path",
    "expected_metric_change", "measured_results", "minimal_example", "failure_modes",
    "known_constraints", "known_limitations", "evidence", "follow_up_validation",
]


def _card() -> str:
    lines = []
    for f in CARD_FIELDS:
        if f in ("enable_when", "avoid_when"):
            lines.append(f"{f}:\n  - something")
        elif f == "validation_status":
            lines.append(f"{f}:\n  some_claim: [measured]")
        elif f == "validated_on":
            lines.append(f'{f}: "2026-01-01"')
        else:
            lines.append(f"{f}: some text")
    return "\n".join(lines) + "\n"


def _evals(ids=("a", "b")) -> str:
    tasks = [{"id": i, "question": "q", "expected_skill": "demo-skill", "expected_script": None,
              "ground_truth": "g", "expected_behavior": ["b"], "should_trigger": True} for i in ids]
    return json.dumps({"skill": "demo-skill", "tasks": tasks}, indent=2)


@pytest.fixture
def pkg(tmp_path: Path) -> Path:
    root = tmp_path / "demo-skill"
    (root / "references").mkdir(parents=True)
    (root / "evals").mkdir()
    (root / "SKILL.md").write_text(SKILL)
    (root / "references" / "versions.md").write_text("# versions\n")
    (root / "card.yaml").write_text(_card())
    (root / "evals" / "evals.json").write_text(_evals())
    (root / "skill-card.md").write_text("## Description: <br>\nDemo. <br>\n")
    return root


def _schema_available() -> bool:
    from importlib import resources
    return resources.files("skill_tools.schemas").joinpath("evals.schema.json").is_file()


def messages(root: Path, levels: tuple[str, ...] = ("error", "warning")) -> list[str]:
    """Errors and warnings; info notes (a check that does not apply, e.g. no signature) left out."""
    return [str(f) for f in lint(root).findings
            if f.severity in levels and "evals.schema.json" not in str(f)]


def test_valid_package_is_clean(pkg):
    assert messages(pkg) == []


def test_repo_itself_is_clean(repo):
    """No errors or warnings. Info notes allowed: a clone's folder name is not checked, the catalog
    signature is attached by NVIDIA's CI, the author has no e-mail address."""
    report = lint(repo)
    loud = [f for f in report.findings if f.severity != "info"]
    assert loud == [], "\n".join(map(str, loud))
    assert {f.file for f in report.findings} <= {"SKILL.md", "skill.oms.sig"}, report.findings


def test_bad_name_names_line_and_expectation(pkg):
    (pkg / "SKILL.md").write_text(SKILL.replace("name: demo-skill", "name: Demo_Skill"))
    msgs = messages(pkg)
    assert any(m.startswith("SKILL.md:2 at $.name:") and "pattern" in m for m in msgs), msgs


def test_name_must_match_folder_under_skills(tmp_path, pkg):
    target = tmp_path / "skills" / "other-name"
    shutil.copytree(pkg, target)
    msgs = messages(target)
    assert any("must match the skill folder name 'other-name'" in m for m in msgs), msgs


def test_missing_description_and_too_long_compatibility(pkg):
    text = SKILL.replace("description: Use when enabling CUDA graphs in Megatron. Not for torch.compile.\n",
                         "compatibility: " + "x" * 501 + "\n")
    (pkg / "SKILL.md").write_text(text)
    msgs = messages(pkg)
    assert any("missing required field 'description'" in m for m in msgs), msgs
    assert any("$.compatibility" in m and "at most 500" in m for m in msgs), msgs


def test_frontmatter_yaml_error_has_line(pkg):
    (pkg / "SKILL.md").write_text("---\nname: demo-skill\ndescription: [unclosed\n---\n# x\n")
    msgs = messages(pkg)
    assert len([m for m in msgs if m.startswith("SKILL.md")]) == 1
    assert any(m.startswith("SKILL.md:") and "YAML syntax error" in m for m in msgs), msgs


def test_no_frontmatter(pkg):
    (pkg / "SKILL.md").write_text("# no frontmatter\n")
    assert any("no YAML frontmatter" in m for m in messages(pkg))


def test_skill_md_too_long(pkg):
    (pkg / "SKILL.md").write_text(SKILL + "line\n" * 500)
    assert any("expected under 500" in m for m in messages(pkg))


def test_broken_link_and_code_path(pkg):
    (pkg / "SKILL.md").write_text(SKILL + "[gone](references/missing.md)\nrun `skill_tools/nope.py`\n"
                                  "[web](https://example.com) [anchor](#x)\n```\n[in fence](nowhere.md)\n```\n")
    msgs = messages(pkg)
    assert any("SKILL.md:15" in m and "'references/missing.md'" in m for m in msgs), msgs
    assert any("SKILL.md:16" in m and "'skill_tools/nope.py'" in m for m in msgs), msgs
    assert not any("example.com" in m or "nowhere" in m or "#x" in m for m in msgs), msgs


def test_card_missing_field_and_wrong_type(pkg):
    text = _card().replace("enable_when:\n  - something", "enable_when: 3").replace("title: some text\n", "")
    (pkg / "card.yaml").write_text(text)
    msgs = messages(pkg)
    assert any(m.startswith("card.yaml") and "missing required field 'title'" in m for m in msgs), msgs
    assert any(m.startswith("card.yaml:") and "$.enable_when" in m for m in msgs), msgs


def test_card_yaml_syntax_error(pkg):
    (pkg / "card.yaml").write_text("title: [a\nsummary: b\n")
    msgs = messages(pkg)
    assert any(m.startswith("card.yaml:") and "YAML syntax error" in m for m in msgs), msgs


def test_duplicate_eval_ids(pkg):
    (pkg / "evals" / "evals.json").write_text(_evals(ids=("a", "b", "a")))
    msgs = messages(pkg)
    assert any("duplicate id 'a'" in m and "$.tasks[2].id" in m for m in msgs), msgs


def test_evals_json_syntax_error(pkg):
    (pkg / "evals" / "evals.json").write_text('{"tasks": [\n  {"id": "a",}\n]}')
    msgs = messages(pkg)
    assert any(m.startswith("evals/evals.json:2:") and "JSON syntax error" in m for m in msgs), msgs


def test_binary_file_is_unreadable_input(pkg, capsys):
    (pkg / "card.yaml").write_bytes(b"\x00\x01\x02binary")
    assert main(["lint", str(pkg)]) == 2
    err = capsys.readouterr().err
    assert "card.yaml: is a binary file" in err and "Traceback" not in err


def test_cli_exit_codes_and_json(pkg, capsys):
    assert main(["lint", str(pkg), "--json"]) in (0, 1)
    out = json.loads(capsys.readouterr().out)
    assert {"ok", "root", "findings"} <= set(out) and out["schema_version"] == 1
    (pkg / "card.yaml").write_text("title: x\n")
    assert main(["lint", str(pkg)]) == 1
    assert main(["lint", str(pkg / "nope")]) == 2


def test_console_script_runs_without_traceback(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "skill_tools", "lint", str(tmp_path)],
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert "SKILL.md: missing" in proc.stdout and "Traceback" not in proc.stderr


def test_closed_pipe_is_not_a_traceback(repo):
    """`skill-tools ... | head` must not print a BrokenPipeError traceback: the reader is gone
    before the command writes anything."""
    proc = subprocess.Popen([sys.executable, "-m", "skill_tools", "validate",
                             "examples/bridge_llama_dense_graph_mistakes.yaml"],
                            cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdout.close()
    err = proc.stderr.read()
    proc.wait(timeout=60)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert proc.returncode == 141
