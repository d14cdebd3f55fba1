"""skill_tools: validate, apply, recommend, benchmark and diagnose CUDA graphs in Megatron.

The Python API mirrors the CLI for agents calling helpers in-process; heavy imports
(torch, megatron-core) happen only inside the functions that need them.

``skill_tools.recommend`` is the API function, also after the submodule of the same name has
been imported (the import system would otherwise rebind the name to the module); import the
module's contents with ``from skill_tools.recommend import ...``.
"""

import sys
import types

__version__ = "0.1.0"

_API = ("validate", "apply", "recommend", "Report")


def __getattr__(name: str):
    """Lazy re-export of the API so ``import skill_tools`` stays cheap."""
    if name in _API:
        from skill_tools import api

        return getattr(api, name)
    raise AttributeError(f"module 'skill_tools' has no attribute {name!r}")


class _Package(types.ModuleType):
    """The package module: a submodule import never shadows an API name."""

    def __setattr__(self, name: str, value) -> None:
        if name in _API and isinstance(value, types.ModuleType):
            return  # the submodule stays in sys.modules; the name keeps resolving to the API
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
