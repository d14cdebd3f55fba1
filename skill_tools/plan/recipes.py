"""Bridge recipe names (``qwen3_30b_a3b``, ``llama3_8b``) as model shapes, from a committed table.

``bridge_recipes.json`` is written by ``scripts/harvest_bridge_recipe_shapes.py`` from the Bridge
source at tags v0.3.1-v0.6.0 (parsed with ast, never executed): each value carries the tag and
file:line of the recipe assignment or provider default it came from. No upstream code is kept.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from importlib import resources
from typing import Any

from skill_tools.config import pysource
from skill_tools.config.model import CanonicalConfig, Location

_SUFFIX = re.compile(r"_(pretrain|sft|peft|finetune)_config$")


@functools.lru_cache(maxsize=1)
def table() -> dict[str, Any]:
    text = resources.files("skill_tools.plan").joinpath("bridge_recipes.json").read_text(encoding="utf-8")
    return json.loads(text)


def names() -> list[str]:
    return sorted(table()["recipes"])


def normalise(name: str) -> str:
    return _SUFFIX.sub("", name.strip())


def lookup(name: str) -> dict[str, Any] | None:
    return table()["recipes"].get(normalise(name))


#: Recipe fields that live outside ``model.`` in the canonical config.
_SECTION = {"micro_batch_size": "train", "global_batch_size": "train"}


def fill(cfg: CanonicalConfig, name: str) -> list[str]:
    """Set the recipe's values on ``cfg`` where the config itself does not set them, each located
    at its citation (``recipe NAME (provider X) TAG:file:line``); returns the keys set."""
    rec = lookup(name)
    done = []
    for field, v in (rec or {}).get("values", {}).items():
        key = f"{_SECTION.get(field, 'model')}.{field}"
        if v["value"] is None or cfg.get(key) is not None:
            continue
        cfg.set(key, v["value"], Location(f"recipe {normalise(name)} ({v['from']}) {v['at']}"))
        done.append(key)
    return done


def recipe_named_in(cfg: CanonicalConfig, text: str | None) -> str | None:
    """The recipe a config builds on: run_script's ``-mr``, or a ``*_pretrain_config()`` call in a
    Python recipe (found with ast, never executed)."""
    name = cfg.get("meta.model_recipe_name")
    if isinstance(name, str) and lookup(name):
        return normalise(name)
    if cfg.fmt == "python" and text:
        try:
            tree = pysource.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                fname = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                if fname and _SUFFIX.search(fname) and lookup(fname):
                    return normalise(fname)
    return None
