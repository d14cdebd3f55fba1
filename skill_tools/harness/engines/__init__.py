"""The engines, by name: each one a folder with a CLI half and a GPU half (:mod:`.base`).

Adding an engine = its folder + one line in :data:`REGISTRY`.
"""

from __future__ import annotations

from skill_tools.errors import InputError
from skill_tools.harness.engines.base import Engine
from skill_tools.harness.engines.bridge import ENGINE as _BRIDGE
from skill_tools.harness.engines.megatron_lm import ENGINE as _MEGATRON_LM
from skill_tools.harness.engines.proxy import ENGINE as _PROXY

#: The first is the default.
REGISTRY: dict[str, Engine] = {e.name: e for e in (_MEGATRON_LM, _BRIDGE, _PROXY)}
DEFAULT = next(iter(REGISTRY))


def names() -> tuple[str, ...]:
    return tuple(REGISTRY)


def get(name: str) -> Engine:
    """The engine called ``name``; InputError (exit 2) naming the known ones otherwise."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise InputError("--engine", f"unknown engine {name!r}", hint="one of " + ", ".join(REGISTRY)) from None


def help_text() -> str:
    return "; ".join(f"{e.name}: {e.summary}" for e in REGISTRY.values())
