"""Errors that the CLI turns into one clear line and an exit code, never a traceback."""

from __future__ import annotations

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_BAD_INPUT = 2


class SkillToolsError(Exception):
    """Base class: carries the exit code the CLI should use."""

    exit_code = EXIT_BAD_INPUT


class InputError(SkillToolsError):
    """Input that cannot be read or understood. The message names the input, where, and the fix."""

    def __init__(self, source: str, message: str, *, line: int | None = None, hint: str | None = None):
        self.source = source
        self.line = line
        self.hint = hint
        where = f"{source}:{line}" if line is not None else source
        text = f"{where}: {message}"
        if hint:
            text += f" ({hint})"
        super().__init__(text)


class SkillToolsWarning(UserWarning):
    """A warning the CLI prints as one line (``skill-tools CMD: warning: ...``) and goes on."""


class NoGpuError(SkillToolsError):
    """A GPU-only command was asked for on a machine without a CUDA device."""


#: The pip extra that brings each optional stack (pyproject.toml [project.optional-dependencies]).
DISTRIBUTION = "megatron-cuda-graphs-skill"
_PIP_NAMES = {"megatron.core": "megatron-core", "transformer_engine": "transformer-engine"}


class MissingExtraError(SkillToolsError):
    """A command needs an optional stack (torch, megatron-core, TE) that this install lacks."""

    def __init__(self, what: str, extra: str, missing: list[str]):
        self.extra = extra
        self.missing = missing
        super().__init__(f"{what} needs {', '.join(missing)}, not installed here: "
                         f"pip install '{DISTRIBUTION}[{extra}]'")


def require_extra(what: str, extra: str, *modules: str) -> None:
    """MissingExtraError (exit 2) naming the extra when any of ``modules`` cannot be found.

    Looks the modules up without importing them, so the check costs nothing on the CLI side."""
    import importlib.util

    missing = []
    for mod in modules:
        try:
            found = importlib.util.find_spec(mod) is not None
        except (ImportError, ValueError):  # a parent package missing or half-installed
            found = False
        if not found:
            missing.append(_PIP_NAMES.get(mod, mod))
    if missing:
        raise MissingExtraError(what, extra, missing)
