"""Edit a config file's own text for ``apply``, each format through its parser's positions.

One entry point, :func:`edit_text`, for every input format: YAML and JSON through the YAML
composer's spans (:mod:`~skill_tools.config.yaml_edit`), Python recipes through :mod:`ast`
offsets (:mod:`~skill_tools.config.python_edit`), launch scripts and Hydra overrides through
shell-word spans (:mod:`~skill_tools.config.shell_edit`). Whatever the editor, the result must
read back through the same reader with the new values (:func:`check_reads_back`); an edit that
would not is refused, so ``apply`` never writes a file its own ``validate`` refuses.
"""

from __future__ import annotations

from typing import Any, Mapping

from skill_tools.config.era import Era
from skill_tools.config.model import REMOVE, plain
from skill_tools.errors import InputError

#: Formats whose files are edited in place (everything else in the file kept byte for byte).
EDITABLE_FORMATS = ("yaml", "json", "python", "hydra", "run_script", "megatron_lm")
#: Formats whose reader gives back exactly the values written (flag formats spell some values
#: through implied settings: run_script's full_iteration is ``local`` + ``full_iteration``).
_EXACT_FORMATS = ("yaml", "json", "python", "hydra")


def edit_text(text: str, fmt: str, changes: Mapping[str, Any], parts: list[str], era: Era,
              source: str) -> tuple[str, list[str]]:
    """``text`` (in ``fmt``) with ``changes`` (key -> value or REMOVE) made; ``parts`` are the
    rendered flags/overrides the shell editor places. Returns the new text and notes."""
    notes: list[str] = []
    if fmt in ("yaml", "json"):
        from skill_tools.config.yaml_edit import edit_yaml

        new, notes = edit_yaml(text, changes, source, json_style=fmt == "json")
    elif fmt == "python":
        from skill_tools.config.python_edit import edit_python

        new, notes = edit_python(text, changes, source)
    elif fmt in ("hydra", "run_script", "megatron_lm"):
        from skill_tools.config.shell_edit import flags_in_strings, splice

        values = {k: (None if v == REMOVE else v) for k, v in changes.items()}
        new = splice(text, fmt, values, parts, era)
        for option, line in flags_in_strings(text, fmt, changes, era):
            notes.append(f"{option} at line {line} is inside a shell string variable: edit it by hand "
                         "(the new flags were added to the command, where the last one wins)")
    else:
        raise InputError(source, f"cannot edit {fmt} input in place", hint=f"in-place formats: {', '.join(EDITABLE_FORMATS)}")
    placed = {k: v for k, v in changes.items() if not any(n.startswith(f"{k}=") for n in notes)}
    check_reads_back(new, fmt, source, placed if fmt in _EXACT_FORMATS else {})
    return new, notes


def check_reads_back(text: str, fmt: str, source: str, expect: Mapping[str, Any] | None = None) -> None:
    """InputError unless ``text`` reads as ``fmt`` (and, for ``expect``, with those values:
    REMOVE means absent). Keeps every output of ``apply`` one that ``validate`` reads."""
    from skill_tools.config.readers import read_text

    try:
        cfg = read_text(text, fmt=fmt, source=source)
    except InputError as exc:
        raise InputError(source, f"refusing to write {fmt} output that would not read back ({exc})",
                         hint="report this input; nothing was written") from None
    for key, value in (expect or {}).items():
        if key.startswith("env."):
            continue
        got = cfg.get(key, REMOVE)
        want = REMOVE if value == REMOVE else plain(value)
        if got != want and not (want in (None, REMOVE) and got in (None, REMOVE)):
            raise InputError(source, f"cannot edit in place: {key} would read back as {got!r}, not {want!r}",
                             hint="the file sets it in a way the editor cannot reach; edit it by hand")
