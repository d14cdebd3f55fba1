"""Read SKILL.md: its YAML frontmatter and its body (the part an agent loads after the name).

One reader for the card generator and the package lint, so both see the same fields.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

FRONTMATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(\r?\n|\Z)", re.S)


def split(text: str) -> tuple[str | None, str]:
    """(frontmatter YAML text or None, body)."""
    m = FRONTMATTER.match(text)
    return (m.group(1), text[m.end():]) if m else (None, text)


def frontmatter(root: Path) -> dict[str, Any]:
    """The parsed frontmatter, or {} when SKILL.md is missing or has none (lint reports those)."""
    path = root / "SKILL.md"
    if not path.is_file():
        return {}
    fm, _ = split(path.read_text(encoding="utf-8", errors="replace"))
    try:
        data = yaml.safe_load(fm) if fm else None
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


def estimate_tokens(text: str) -> int:
    """About four characters per token: the rule of thumb behind the spec's ~5k-token guideline.

    No tokenizer ships with the project; the estimate is deterministic and errs high on prose.
    """
    return (len(text) + 3) // 4
