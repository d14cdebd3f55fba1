"""What NVIDIA's skills catalog and the Agent Skills reference validator check, as lint findings.

Each check names where its expectation comes from, so a finding can be traced to the tool that
would raise it:

- **Folder name.** The reference validator (PyPI ``skills-ref`` 0.1.1, ``skills_ref/validator.py``
  ``_validate_name``) fails when the folder's name differs from ``name``; every one of the 343
  skills in the catalog (NVIDIA/skills @7149a88) sits at ``skills/<name>/``, and agents load
  skills from ``.claude/skills/<name>/`` or ``.agents/skills/<name>/``. So the name is checked
  where the folder *is* an installed or catalogued skill: its parent folder is named ``skills``,
  or ``--as-installed DIR`` says so. A clone checked out under any other name (a git worktree, a
  CI checkout) gets an info note instead of a failure: its name is not what an agent sees.
  Symlinked installs are judged by the link's name, not its target's.
- **Tier-1 findings of the catalog's evaluator** (as printed in the catalog's BENCHMARK.md files):
  ``SCHEMA/author_missing`` (MEDIUM), ``SCHEMA/author_format`` (LOW: ``Name <email@host>``),
  ``SCHEMA/metadata_key_style`` (MEDIUM: kebab-case metadata keys),
  ``SCHEMA/body_recommended_section`` (MEDIUM: ``## Instructions``, ``## Examples``); and the
  spec's guideline of a body under about 5k tokens.
- **Sync gates** (``.github/workflows/sync-skills.yml`` @7149a88, "Enforce skill compliance"): a
  skill without ``skill-card.md`` or ``skill.oms.sig`` is dropped. ``skill-card.md`` is generated
  here, so it must exist and match its sources. ``skill.oms.sig`` is an OpenSSF model-signing
  (OMS) Sigstore bundle that NVIDIA's NVSkills CI attaches (the "Attach NVSkills validation
  signatures" commit by ``nv-skills-ci[bot]`` after a maintainer's ``/nvskills-ci``); it cannot
  be produced here, so its absence is an info note. When one is present, every file it lists
  must still hash to the signed digest, as the sync's "Detect signature drift" step and
  ``.github/scripts/verify_content_integrity.py`` require.
- **No absolute paths of one machine** (home folders) in the files an agent reads.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from skill_tools.errors import InputError
from skill_tools.package.package_lint import LintFinding, _doc_files, _read_text
from skill_tools.package.skill_md import split as split_skill_md
from skill_tools.package.skill_md import estimate_tokens

SIGNATURE = "skill.oms.sig"
SKILL_CARD = "skill-card.md"
BODY_TOKEN_GUIDELINE = 5000
#: Sections the catalog's evaluator reports as missing (SCHEMA/body_recommended_section).
RECOMMENDED_SECTIONS = ("Instructions", "Examples")
#: The catalog's author format (SCHEMA/author_format: "Author must be of the form 'Name <email@host>'").
AUTHOR_FORM = re.compile(r"^[^<>]+\s<[^<>@\s]+@[^<>@\s]+>$")
#: Metadata keys (SCHEMA/metadata_key_style: "Metadata key 'data_classification' is not kebab-case").
KEBAB = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
#: Home folders of one machine: a skill that cites them works only there.
MACHINE_PATH = re.compile(r"(?<![\w.])(/home/[\w.-]+/|/Users/[\w.-]+/|/root/|[A-Za-z]:\\Users\\)")
#: Files an agent may read besides the linked docs.
EXTRA_TEXT = ("card.yaml", "evals/evals.json")
#: card.yaml's header when `card sync` maintains it; other skills' hand-written cards are not regenerated.
GENERATED_MARK = "skill-tools card sync"


def _finding(rel: str, message: str, severity: str = "error", line: int | None = None,
             path: str | None = None) -> LintFinding:
    return LintFinding(rel, message, line=line, path=path, severity=severity)


def check_installed_name(root: Path, name: Any, *, as_installed: bool) -> list[LintFinding]:
    """name == folder name where the folder is what agents and the catalog see."""
    if not isinstance(name, str):
        return []  # the frontmatter checks report a missing or malformed name
    folder = Path(os.path.abspath(root))  # not resolve(): a symlinked install is named by the link
    installed = as_installed or folder.parent.name == "skills"
    if folder.name == name:
        return []
    if installed:
        where = "--as-installed" if as_installed else "under a skills/ folder"
        return [_finding("SKILL.md", f"name {name!r} must match the skill folder name {folder.name!r} "
                                     f"({where}; the Agent Skills reference validator and the catalog's "
                                     f"skills/<name>/ layout require it): rename the folder to {name!r}",
                         path="$.name")]
    return [_finding("SKILL.md", f"folder {folder.name!r} is not an installed skill folder (its parent is not "
                                 f"named 'skills'), so name == folder is not checked here; install it as "
                                 f"<skills dir>/{name}/ and check that with `skill-tools lint --as-installed DIR`",
                     severity="info", path="$.name")]


def check_frontmatter_metadata(front: dict[str, Any]) -> list[LintFinding]:
    meta = front.get("metadata") if isinstance(front.get("metadata"), dict) else {}
    out = [_finding("SKILL.md", f"metadata key {key!r} is not kebab-case (the catalog's evaluator reports "
                                f"SCHEMA/metadata_key_style, MEDIUM): rename it "
                                f"{re.sub(r'[_ ]+', '-', str(key)).lower()!r}",
                    severity="warning", path=f"$.metadata.{key}")
           for key in meta if not KEBAB.fullmatch(str(key))]
    return out + _author_findings(meta)


def _author_findings(meta: dict[str, Any]) -> list[LintFinding]:
    author = meta.get("author")
    if not isinstance(author, str) or not author.strip():
        return [_finding("SKILL.md", "metadata.author is missing (the catalog's evaluator reports "
                                     "SCHEMA/author_missing, MEDIUM): add metadata: {author: \"Name <email@host>\"}",
                         severity="warning", path="$.metadata.author")]
    if not AUTHOR_FORM.match(author.strip()):
        return [_finding("SKILL.md", f"metadata.author {author!r} is not of the form 'Name <email@host>' "
                                     "(the catalog's evaluator reports SCHEMA/author_format, LOW)",
                         severity="info", path="$.metadata.author")]
    return []


def check_body(text: str) -> list[LintFinding]:
    _, body = split_skill_md(text)
    headings = {m.group(1).strip() for m in re.finditer(r"^##[ \t]+(.+?)[ \t#]*$", body, re.M)}
    out = [_finding("SKILL.md", f"no '## {s}' section (the catalog's evaluator reports "
                                f"SCHEMA/body_recommended_section, MEDIUM)", severity="warning")
           for s in RECOMMENDED_SECTIONS if s not in headings]
    tokens = estimate_tokens(body)
    if tokens > BODY_TOKEN_GUIDELINE:
        out.append(_finding("SKILL.md", f"body is about {tokens} tokens, over the Agent Skills guideline of "
                                        f"~{BODY_TOKEN_GUIDELINE}: move detail to references/", severity="warning"))
    return out


def check_machine_paths(root: Path) -> list[LintFinding]:
    out = []
    files = list(_doc_files(root)) + [root / rel for rel in EXTRA_TEXT if (root / rel).is_file()]
    for doc in files:
        rel = doc.relative_to(root).as_posix()
        for lineno, line in enumerate(_read_text(doc, rel).splitlines(), 1):
            m = MACHINE_PATH.search(line)
            if m:
                out.append(_finding(rel, f"absolute path of one machine {m.group(1)!r}: use a path relative "
                                         "to the skill folder or a placeholder such as <checkpoint dir>", line=lineno))
    return out


def check_generated(root: Path) -> list[LintFinding]:
    """skill-card.md must exist (the catalog's sync drops a skill without it) and, where ``card sync``
    maintains the card, match what it generates from its sources, like card.yaml and BENCHMARK.md."""
    out = []
    if not (root / SKILL_CARD).is_file():
        out.append(_finding(SKILL_CARD, "missing: the catalog's sync drops a skill without it "
                                        "(sync-skills.yml, 'Enforce skill compliance'); run `skill-tools card sync`"))
    card = root / "card.yaml"
    if not card.is_file() or GENERATED_MARK not in _read_text(card, "card.yaml"):
        return out  # no card (check_card reports it), or one that `card sync` does not maintain
    from skill_tools.package.card import sync  # imported here: card sync reads every results file

    try:
        report = sync(root, check=True)
    except InputError as exc:
        if exc.source == "card.yaml":
            return out  # check_card reports an unreadable card
        return out + [_finding(exc.source, f"cannot regenerate the card's sections: {exc}")]
    for rel in report.stale:
        if rel == SKILL_CARD and not (root / SKILL_CARD).is_file():
            continue
        out.append(_finding(rel, "out of date with its sources (SKILL.md frontmatter, card.yaml, "
                                 "benchmarks/): run `skill-tools card sync`"))
    return out


def signed_resources(sig: Path) -> list[dict[str, Any]]:
    """The files an OMS bundle signs: DSSE payload -> in-toto statement -> predicate.resources."""
    bundle = json.loads(sig.read_text(encoding="utf-8"))
    statement = json.loads(base64.b64decode(bundle["dsseEnvelope"]["payload"]))
    resources = statement["predicate"]["resources"]
    if not isinstance(resources, list):
        raise TypeError("predicate.resources is not a list")
    return resources


def check_signature(root: Path) -> list[LintFinding]:
    sig = root / SIGNATURE
    if not sig.is_file():
        return [_finding(SIGNATURE, "absent: the catalog's sync drops a skill without it. It is an OMS "
                                    "(OpenSSF model-signing) signature that NVIDIA's NVSkills CI attaches after a "
                                    "maintainer comments /nvskills-ci on a pull request; it cannot be made here. "
                                    "Any later change to a signed file needs a fresh signature (README, "
                                    "'NVIDIA skills catalog')", severity="info")]
    try:
        resources = signed_resources(sig)
    except (ValueError, KeyError, TypeError, binascii.Error, UnicodeDecodeError) as exc:
        return [_finding(SIGNATURE, f"cannot read the signature bundle ({type(exc).__name__}: {exc}); the "
                                    "catalog holds or drops a skill with an unreadable bundle")]
    out = []
    for res in resources:
        name = res.get("name") if isinstance(res, dict) else None
        if not isinstance(name, str):
            out.append(_finding(SIGNATURE, f"signed resource without a name: {res!r:.80}"))
            continue
        target = root / name
        if not target.is_file():
            out.append(_finding(name, f"listed in {SIGNATURE} but missing: re-sign (NVSkills CI) or restore it"))
        elif hashlib.sha256(target.read_bytes()).hexdigest() != res.get("digest"):
            out.append(_finding(name, f"changed since it was signed ({SIGNATURE}): the catalog's sync reverts "
                                      "or drops the skill (signature drift); request a fresh signature"))
    return out


def check_catalog(root: Path, front: dict[str, Any] | None, *, as_installed: bool = False) -> list[LintFinding]:
    """Every check above. ``front`` is the parsed frontmatter, or None when SKILL.md is missing or broken."""
    out: list[LintFinding] = []
    path = root / "SKILL.md"
    if isinstance(front, dict):  # a broken frontmatter is reported alone; the rest follows once it parses
        out += check_installed_name(root, front.get("name"), as_installed=as_installed)
        out += check_frontmatter_metadata(front)
        out += check_body(_read_text(path, "SKILL.md"))
    out += check_machine_paths(root)
    out += check_generated(root)
    out += check_signature(root)
    return out
