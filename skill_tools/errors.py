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


class NoGpuError(SkillToolsError):
    """A GPU-only command was asked for on a machine without a CUDA device."""
