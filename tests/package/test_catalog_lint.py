"""What the skills catalog and the Agent Skills reference validator check, as `skill-tools lint` sees it.

The signature tests build bundles in the layout of the catalog's ``skill.oms.sig`` (Sigstore bundle
v0.3, DSSE envelope, in-toto statement with ``predicate.resources`` of name/digest/algorithm), the
layout ``.github/scripts/verify_content_integrity.py`` (NVIDIA/skills @7149a88) decodes.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
from pathlib import Path

import pytest

from skill_tools.package.catalog_lint import BODY_TOKEN_GUIDELINE, check_signature
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
## Instructions
Do the thing.
## Examples
An example.
"""
CARD = "\n".join(f"{k}: some text" for k in (
    "title", "summary", "training_dimensions", "interactions", "feature_meaning", "config_keys",
    "recommended_path", "expected_metric_change", "measured_results", "minimal_example", "failure_modes",
    "known_constraints", "known_limitations", "evidence", "follow_up_validation")) + \
    '\nvalidated_on: "2026-01-01"\nvalidation_status:\n  c: [measured]\nenable_when: [x]\navoid_when: [y]\n'
EVALS = json.dumps([{"id": "a", "question": "q", "expected_skill": "demo-skill", "expected_script": None,
                     "ground_truth": "g", "expected_behavior": ["b"]}])


def make_skill(folder: Path, skill_md: str = SKILL) -> Path:
    (folder / "evals").mkdir(parents=True)
    (folder / "SKILL.md").write_text(skill_md)
    (folder / "card.yaml").write_text(CARD)
    (folder / "evals" / "evals.json").write_text(EVALS)
    (folder / "skill-card.md").write_text("## Description: <br>\nDemo. <br>\n")
    return folder


def found(root: Path, *, as_installed: bool = False) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {"error": [], "warning": [], "info": []}
    for f in lint(root, as_installed=as_installed).findings:
        out[f.severity].append(str(f))
    return out


# ----------------------------------------------------------------------------------------------
# name == folder where the folder is an installed or catalogued skill
# ----------------------------------------------------------------------------------------------


def test_clone_under_any_name_is_not_failed_but_told(tmp_path):
    root = make_skill(tmp_path / "my-checkout")
    got = found(root)
    assert got["error"] == [] and got["warning"] == [], got
    assert any("not an installed skill folder" in m and "demo-skill" in m for m in got["info"]), got


@pytest.mark.parametrize("skills_dir", ["skills", ".claude/skills", ".agents/skills"])
def test_installed_or_catalogued_folder_must_carry_the_name(tmp_path, skills_dir):
    wrong = make_skill(tmp_path / skills_dir / "other-name")
    assert any("must match the skill folder name 'other-name'" in m for m in found(wrong)["error"])
    right = make_skill(tmp_path / skills_dir / "demo-skill")
    assert not any("$.name" in m for m in sum(found(right).values(), []))


def test_symlinked_install_is_judged_by_the_link_name(tmp_path):
    clone = make_skill(tmp_path / "clone-under-any-name")
    skills = tmp_path / "home" / ".claude" / "skills"
    skills.mkdir(parents=True)
    (skills / "demo-skill").symlink_to(clone, target_is_directory=True)
    (skills / "wrong").symlink_to(clone, target_is_directory=True)
    assert found(skills / "demo-skill")["error"] == []
    assert any("'wrong'" in m for m in found(skills / "wrong")["error"])


def test_cli_as_installed_fails_on_a_wrong_folder_name(tmp_path, capsys):
    clone = make_skill(tmp_path / "checkout")
    assert main(["lint", str(clone)]) == 0
    assert main(["lint", "--as-installed", str(clone)]) == 1
    assert "must match the skill folder name 'checkout'" in capsys.readouterr().out
    link = tmp_path / "demo-skill"
    link.symlink_to(clone, target_is_directory=True)
    assert main(["lint", "--as-installed", str(link), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and all(f["severity"] != "error" for f in report["findings"])
    assert main(["lint", str(tmp_path), "--as-installed", str(link)]) == 2


def test_agrees_with_the_reference_validator(tmp_path):
    """skills-ref (the Agent Skills reference library) fails name != folder everywhere; lint fails it
    where the folder is installed, and both accept the installed layout."""
    validator = pytest.importorskip("skills_ref.validator")
    installed = make_skill(tmp_path / "skills" / "demo-skill")
    assert validator.validate(installed) == [] and found(installed)["error"] == []
    misnamed = make_skill(tmp_path / "skills" / "demo")
    assert validator.validate(misnamed) and found(misnamed)["error"]


# ----------------------------------------------------------------------------------------------
# the catalog evaluator's Tier-1 findings and the spec's size guideline
# ----------------------------------------------------------------------------------------------


def test_author_missing_is_a_warning_and_its_form_an_info(tmp_path):
    root = make_skill(tmp_path / "a", SKILL.replace('  author: "Demo Team <demo@example.com>"\n', ""))
    assert any("SCHEMA/author_missing" in m for m in found(root)["warning"])
    other = make_skill(tmp_path / "b", SKILL.replace("Demo Team <demo@example.com>", "Demo Team"))
    got = found(other)
    assert any("SCHEMA/author_format" in m for m in got["info"]) and got["warning"] == []


def test_metadata_keys_are_kebab_case(tmp_path):
    root = make_skill(tmp_path / "a", SKILL.replace('  version: "1"\n', '  version: "1"\n  checked_against: x\n'))
    assert any("'checked_against' is not kebab-case" in m and "'checked-against'" in m for m in found(root)["warning"])


def test_missing_sections_and_a_long_body_are_warnings(tmp_path):
    body = SKILL.replace("## Instructions\n", "").replace("## Examples\n", "### Examples\n")
    root = make_skill(tmp_path / "a", body + "word " * (BODY_TOKEN_GUIDELINE * 4 // 5 + 10))
    got = "\n".join(found(root)["warning"])
    assert "'## Instructions'" in got and "'## Examples'" in got and "tokens" in got
    assert lint(root).ok  # warnings do not fail lint


def test_machine_paths_are_errors_with_their_line(tmp_path):
    root = make_skill(tmp_path / "demo-skill", SKILL + "Load /home/alice/ckpt/model.pt first.\n")
    (root / "references").mkdir()
    (root / "references" / "x.md").write_text("ok\nC:\\Users\\bob\\run.log\n")
    errors = found(root)["error"]
    assert any(m.startswith("SKILL.md:14:") and "/home/alice/" in m for m in errors), errors
    assert any(m.startswith("references/x.md:2:") for m in errors), errors


# ----------------------------------------------------------------------------------------------
# the catalog's sync gates: skill-card.md and skill.oms.sig
# ----------------------------------------------------------------------------------------------


def test_skill_card_is_required(tmp_path):
    root = make_skill(tmp_path / "demo-skill")
    (root / "skill-card.md").unlink()
    assert any(m.startswith("skill-card.md: missing") for m in found(root)["error"])


def test_generated_skill_card_must_match_its_sources(repo, tmp_path):
    root = tmp_path / "megatron-cuda-graphs"
    keep = {"SKILL.md", "card.yaml", "skill-card.md", "BENCHMARK.md", "evals", "benchmarks", "references",
            ".claude-plugin"}
    root.mkdir()
    for name in keep:
        src = repo / name
        (shutil.copytree if src.is_dir() else shutil.copy)(src, root / name)
    assert not any("out of date" in m for m in found(root)["error"])
    card = root / "skill-card.md"
    card.write_text(card.read_text().replace("Global <br>", "Mars <br>"))
    assert any(m.startswith("skill-card.md: out of date") for m in found(root)["error"])


def _bundle(root: Path, names: list[str]) -> str:
    resources = [{"name": n, "algorithm": "sha256", "digest": hashlib.sha256((root / n).read_bytes()).hexdigest()}
                 for n in names]
    statement = {"_type": "https://in-toto.io/Statement/v1",
                 "subject": [{"name": root.name, "digest": {"sha256": "0" * 64}}],
                 "predicateType": "https://model_signing/signature/v1.0",
                 "predicate": {"resources": resources,
                               "serialization": {"method": "files", "hash_type": "sha256"}}}
    return json.dumps({"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json",
                       "verificationMaterial": {},
                       "dsseEnvelope": {"payload": base64.b64encode(json.dumps(statement).encode()).decode(),
                                        "payloadType": "application/vnd.in-toto+json", "signatures": []}})


def test_absent_signature_is_an_info_that_says_who_makes_it(tmp_path):
    root = make_skill(tmp_path / "demo-skill")
    [note] = [m for m in found(root)["info"] if m.startswith("skill.oms.sig")]
    assert "NVSkills CI" in note and "/nvskills-ci" in note


def test_signature_drift_missing_file_and_bad_bundle_are_errors(tmp_path):
    root = make_skill(tmp_path / "demo-skill")
    (root / "skill.oms.sig").write_text(_bundle(root, ["SKILL.md", "card.yaml", "evals/evals.json"]))
    assert check_signature(root) == []
    (root / "card.yaml").write_text(CARD + "# edited after signing\n")
    (root / "evals" / "evals.json").unlink()
    msgs = [str(f) for f in check_signature(root)]
    assert any(m.startswith("card.yaml: changed since it was signed") for m in msgs), msgs
    assert any(m.startswith("evals/evals.json: listed in skill.oms.sig but missing") for m in msgs), msgs
    (root / "skill.oms.sig").write_text('{"dsseEnvelope": {"payload": "not base64!"}}')
    assert [f.file for f in check_signature(root)] == ["skill.oms.sig"]
