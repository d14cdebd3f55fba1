"""The task's workspace: the files an agent works on, and what it changed in them.

A task may ship a folder of real files (``"workspace": "workspaces/<id>"`` beside the task set: a
stock Bridge recipe, a Megatron-LM launch script, a YAML config). ``evals run --agent-cmd`` gives
the agent a fresh copy of it as its working folder; afterwards :func:`changes` lists the files
the agent created, changed or deleted, and the verifier reads those files, not only the answer's
message. Only regular files are copied and read (links are neither followed nor copied), sizes are
bounded, and nothing in the copy is ever run.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from skill_tools.errors import InputError

MAX_FILES = 200
MAX_FILE_BYTES = 200_000
MAX_CHANGED = 20


@dataclass
class Changes:
    """Files the agent left different from the workspace it was given (text, relative paths)."""

    files: dict[str, str] = field(default_factory=dict)
    deleted: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"files": self.files, "deleted": self.deleted, "notes": self.notes}


def resolve(task_data: dict, root: Path | None) -> Path | None:
    """The task's workspace folder, or None; refused when it leaves the task set's folder."""
    ref = task_data.get("workspace")
    if not ref:
        return None
    if root is None:
        raise InputError(str(ref), "a task workspace needs the task set's folder", hint="load the task set from a file")
    rel = Path(str(ref))
    if rel.is_absolute() or ".." in rel.parts:
        raise InputError(str(ref), f"task {task_data.get('id')!r}: workspace must be a folder inside the task set's folder")
    folder = (root / rel).resolve()
    if not folder.is_relative_to(root.resolve()) or not folder.is_dir():
        raise InputError(str(ref), f"task {task_data.get('id')!r}: workspace folder not found beside the task set")
    return folder


def _walk(folder: Path) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not (Path(dirpath) / d).is_symlink())
        for name in sorted(filenames):
            p = Path(dirpath) / name
            if p.is_symlink() or not p.is_file():
                continue
            out[p.relative_to(folder).as_posix()] = p
            if len(out) > MAX_FILES:
                raise InputError(str(folder), f"more than {MAX_FILES} files in the workspace")
    return out


def copy(src: Path, dest: Path) -> dict[str, str]:
    """Copy the regular files of ``src`` into ``dest`` (created); returns their digests."""
    dest.mkdir(parents=True, exist_ok=True)
    digests: dict[str, str] = {}
    for rel, p in _walk(src).items():
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(p, target)
        digests[rel] = _digest(target)
    return digests


def _digest(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def changes(folder: Path, before: dict[str, str]) -> Changes:
    """What differs in ``folder`` from the digests taken when it was handed over."""
    out = Changes()
    try:
        now = _walk(folder)
    except InputError as exc:
        out.notes.append(str(exc))
        return out
    out.deleted = sorted(set(before) - set(now))
    for rel, p in now.items():
        if before.get(rel) == _digest(p):
            continue
        if len(out.files) >= MAX_CHANGED:
            out.notes.append(f"more than {MAX_CHANGED} changed files; the rest are not read")
            break
        if p.stat().st_size > MAX_FILE_BYTES:
            out.notes.append(f"{rel}: larger than {MAX_FILE_BYTES} bytes; not read")
            continue
        try:
            out.files[rel] = p.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            out.notes.append(f"{rel}: not UTF-8 text; not read")
    return out
