"""``.claude-plugin/plugin.json``: the skill folder as a Claude Code plugin, generated from SKILL.md.

Laid out like the plugins in NVIDIA's skills catalog whose skill folder is its own plugin
(``skills/deepstream-sop/.claude-plugin/plugin.json`` @7149a88: name, description, author,
license, ``"skills": "./"``), plus the version and keywords of its ``plugins/nvidia-skills``
manifest. Every field comes from the SKILL.md frontmatter, so ``card sync --check`` (and lint)
catch a manifest that no longer matches the skill.
"""

from __future__ import annotations

import json
import re
from typing import Any

PLUGIN_JSON = ".claude-plugin/plugin.json"
KEYWORDS = ("nvidia", "megatron", "megatron-core", "megatron-bridge", "cuda-graphs", "training", "inference")


def _author(text: str) -> dict[str, str]:
    """``Name <email@host>`` -> {name, email}; anything else -> {name}."""
    m = re.fullmatch(r"\s*([^<>]+?)\s*<([^<>\s]+@[^<>\s]+)>\s*", text)
    return {"name": m.group(1), "email": m.group(2)} if m else {"name": text.strip()}


def render_plugin_json(front: dict[str, Any]) -> str | None:
    """The manifest text, or None when the frontmatter has no name (lint reports that)."""
    name = front.get("name")
    if not isinstance(name, str) or not name:
        return None
    meta = front.get("metadata") if isinstance(front.get("metadata"), dict) else {}
    out: dict[str, Any] = {"name": name}
    if meta.get("version"):
        out["version"] = str(meta["version"])
    out["description"] = " ".join(str(front.get("description", "")).split())
    if meta.get("author"):
        out["author"] = _author(str(meta["author"]))
    if front.get("license"):
        out["license"] = str(front["license"])
    out["keywords"] = list(KEYWORDS)
    out["skills"] = "./"
    return json.dumps(out, indent=2, ensure_ascii=False) + "\n"
