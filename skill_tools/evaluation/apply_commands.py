"""``skill-tools apply`` commands an answer gives, read as the overrides they write.

The skill teaches agents to write graph settings with this package's own ``apply``, so an answer
often recommends a config as a command: ``skill-tools apply cfg.yaml --impl transformer_engine
--scope moe_router moe_preprocess``. That command is the recommendation, and what it would write is
what the scorer judges. The command line must be accepted by skill-tools' own parser (the injected
``refusal``; a refused one is judged by :mod:`tool_commands`); its arguments are then read from the
accepted line, shell variables the answer assigns (``IMPL=transformer_engine`` … ``--impl "$IMPL"``)
resolved, and the overrides come from :func:`skill_tools.overrides.plan`, the function the command
runs, on an empty config of the command's era (``--mcore-version``, else the answer's). Nothing is
run and no file is opened.
"""

from __future__ import annotations

import re
from typing import Any

from skill_tools.config.era import DEFAULT_CURRENT, DEFAULT_LEGACY, era_for
from skill_tools.config.model import REMOVE, CanonicalConfig
from skill_tools.errors import InputError
from skill_tools.evaluation.extract import Block, Extraction
from skill_tools.evaluation.polarity import LinePolarity
from skill_tools.evaluation.tool_commands import Refusal, invocations

_VAR = re.compile(r"^\$\{?([A-Za-z_]\w*)\}?$")
_DEFAULT = re.compile(r"^\$\{[A-Za-z_]\w*:?-([^{}$]*)\}$")
#: apply's options that take one value, and the one that takes a list.
_ONE = ("--impl", "--warmup", "--inference-scope", "--mcore-version")
_MAX_COMMANDS = 8


def _options(argv: list[str]) -> dict[str, Any]:
    """``--impl X``, ``--scope A B`` / ``--scope A,B``, ``--warmup N`` … of a line the parser accepted."""
    out: dict[str, Any] = {}
    i = 1
    while i < len(argv):
        name, eq, value = argv[i].partition("=")
        if name in _ONE and (eq or i + 1 < len(argv)):
            out[name] = value if eq else argv[i + 1]
            i += 1 if eq else 2
        elif name == "--scope":
            values = [value] if eq else []
            while not eq and i + 1 < len(argv) and not argv[i + 1].startswith("-"):
                i += 1
                values.append(argv[i])
            out[name] = [s for v in values for s in v.split(",") if s]
            i += 1
        else:
            i += 1
    return out


def _resolved(word: str, env: dict[str, str]) -> str:
    """``$IMPL`` -> the value the answer assigns it; ``${MCORE:-0.19.2}`` (assigned or written) -> its default."""
    m = _VAR.match(word)
    word = env.get(m.group(1), word) if m else word
    default = _DEFAULT.match(word)
    return default.group(1) if default else word


def command_blocks(text: str, ex: Extraction, refusal: Refusal | None) -> list[Block]:
    """One suggested block per accepted ``skill-tools apply`` command that sets graph options."""
    from skill_tools.overrides import plan

    if refusal is None or "apply" not in text:
        return []
    env = {k: v for b in ex.blocks if b.kind == "env" and b.cfg is not None for k, v in b.cfg.env.items()}
    lines = text.split("\n")
    out = []
    for argv, line in list(invocations(text))[:_MAX_COMMANDS]:
        if not argv or argv[0] != "apply":
            continue
        argv = [_resolved(w, env) for w in argv]
        if any(w.startswith("$") or w == "PLACEHOLDER" for w in argv[1:]) or refusal(argv):
            continue
        opts = _options(argv)
        if not {"--impl", "--scope", "--inference-scope"} & set(opts):
            continue
        source = lines[line - 1] if 0 < line <= len(lines) else ""
        at = source.find("skill-tools")
        role = LinePolarity(source).at(max(at, 0), len(source)).role if at >= 0 else "suggested"
        version = opts.get("--mcore-version") or (DEFAULT_LEGACY if ex.era == "legacy" else DEFAULT_CURRENT)
        try:
            era = era_for(version)
            warmup = int(opts["--warmup"]) if "--warmup" in opts else None
            result = plan(CanonicalConfig(), opts.get("--impl"), opts.get("--scope"), era, warmup=warmup,
                          inference_scope=opts.get("--inference-scope"))
        except (InputError, ValueError):
            continue  # a combination apply itself refuses: the command is judged by tool_commands
        cfg = CanonicalConfig(source=f"answer:{line}", fmt="answer")
        for key, value in result.changes.items():
            if value is not REMOVE:
                cfg.set(key, value)
        block = Block("hydra", " ".join(argv), line, "fenced", role, era=era.name,
                      why="the overrides its `skill-tools apply` command writes", keys=sorted(cfg.values))
        block.cfg = cfg
        out.append(block)
    return out
