"""skill_tools: validate, apply, recommend, benchmark and diagnose CUDA graphs in Megatron.

The Python API mirrors the CLI for agents calling helpers in-process; heavy imports
(torch, megatron-core) happen only inside the functions that need them.
"""

__version__ = "0.1.0"

_API = ("validate", "apply", "recommend", "Report")


def __getattr__(name: str):
    """Lazy re-export of the API so ``import skill_tools`` stays cheap."""
    if name in _API:
        from skill_tools import api

        return getattr(api, name)
    raise AttributeError(f"module 'skill_tools' has no attribute {name!r}")
