"""Config objects an answer builds in Python, judged by the fields their classes have.

Answers that serve or train from their own code construct megatron-core's config dataclasses
directly: ``InferenceConfig(num_cuda_graphs=-1, inference_cuda_graph_scope="block")``. A keyword
the dataclass lacks raises ``TypeError`` at construction, and a field written on the wrong object
never reaches the one that reads it (``inference_cuda_graph_scope`` is a ``TransformerConfig``
field). The field tables are data (``skill_tools/data/mcore_dataclass_fields.json``, extracted
from Megatron-LM's tags by ``scripts/extract_mcore_dataclass_fields.py``); the answer's Python is
parsed with :mod:`ast`, never run. A class the era's tags do not have is not judged.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from skill_tools.config.pysource import parse
from skill_tools.config.read_python import attr_chain
from skill_tools.evaluation.fragments import SUGGESTED, Block

_DATA = Path(__file__).resolve().parents[1] / "data" / "mcore_dataclass_fields.json"
#: The tags of each era in the table.
_ERA_TAGS = {"legacy": ("core_v0.16.1", "core_v0.17.0"), "current": ("core_v0.18.0", "core_v0.19.0")}


@dataclass(frozen=True)
class Misfit:
    cls: str
    keyword: str
    home: str | None  # the class that has the field, if another one does
    line: int

    def message(self) -> str:
        where = f"it is a {self.home} field" if self.home else "no megatron-core config class has it"
        return (f"{self.cls}({self.keyword}=…): {self.cls} has no field {self.keyword!r} ({where}); "
                f"the constructor raises TypeError")


@lru_cache(maxsize=1)
def _table() -> dict[str, dict[str, list[str]]]:
    return json.loads(_DATA.read_text(encoding="utf-8"))["classes"]


def fields(cls: str, era: str | None) -> frozenset[str] | None:
    """The fields of ``cls`` at any tag of ``era`` (every tag when None); None where it has none."""
    tags = _table().get(cls, {})
    wanted = [t for t in tags if era is None or t in _ERA_TAGS.get(era, ())]
    if not wanted:
        return None
    return frozenset(f for t in wanted for f in tags[t])


#: A comment that shows what the code raises: ``# TypeError: __init__() got an unexpected keyword argument``.
_REPRODUCES = re.compile(r"^\s*#\s*(?:TypeError|AssertionError|ValueError|KeyError|AttributeError|RuntimeError)\b", re.M)


def misfits(blocks: list[Block], era: str | None) -> list[Misfit]:
    """Keywords of recommended config-object constructions that their class does not have."""
    out: list[Misfit] = []
    for block in blocks:
        if block.kind != "python" or block.role != SUGGESTED or _REPRODUCES.search(block.text):
            continue  # (a block whose own comment shows the exception it raises reproduces the error)
        try:
            tree = parse(block.text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            cls = (attr_chain(node.func) or [None])[-1]
            known = fields(cls, era) if cls in _table() else None
            if known is None:
                continue
            for kw in node.keywords:
                if kw.arg is None or kw.arg in known:
                    continue
                home = next((c for c in sorted(_table()) if c != cls and kw.arg in (fields(c, era) or ())), None)
                out.append(Misfit(cls, kw.arg, home, block.line + getattr(node, "lineno", 1) - 1))
    return out
