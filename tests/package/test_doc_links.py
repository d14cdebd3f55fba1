"""Every relative link in SKILL.md and references/ points at a file that exists and, with
``#anchor``, at a heading of that file (GitHub's slug rules), so the routes agents follow land."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "SKILL.md", *sorted((REPO / "references").glob("*.md"))]
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^(`{3,}|~{3,})")


def slug(heading: str) -> str:
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    out, fence = set(), None
    for line in path.read_text(encoding="utf-8").splitlines():
        m = _FENCE.match(line)
        if m:
            fence = None if fence and line.startswith(fence) else (fence or m.group(1))
            continue
        if fence is None and line.startswith("#"):
            out.add(slug(line.lstrip("#")))
    return out


def links() -> list[tuple[str, str]]:
    found = []
    for doc in DOCS:
        for target in _LINK.findall(doc.read_text(encoding="utf-8")):
            if not re.match(r"^[a-z]+://", target):
                found.append((doc.relative_to(REPO).as_posix(), target))
    return found


@pytest.mark.legacy
@pytest.mark.parametrize(("doc", "target"), links())
def test_relative_link_resolves(doc: str, target: str) -> None:
    path, _, anchor = target.partition("#")
    file = (REPO / doc).parent / path if path else REPO / doc
    assert file.is_file(), f"{doc}: link to missing file {target}"
    if anchor and file.suffix == ".md":
        assert anchor in anchors(file), f"{doc}: no heading for #{anchor} in {file.relative_to(REPO)}"


def test_skill_md_routes_to_sections() -> None:
    skill_links = [t for d, t in links() if d == "SKILL.md" and t.startswith("references/")]
    assert sum("#" in t for t in skill_links) >= 15, skill_links
    assert any(t.startswith("references/rules.md") for t in skill_links)
