"""Write a command's output file the way a careful editor does.

``apply --out/--in-place`` replaces the target atomically (a temp file in the same folder, then
``os.replace``), so a crash or a kill never leaves half a config. Around that:

* ``-`` means standard output;
* a target that exists and is not a regular file (a folder, FIFO, character device, socket) is
  refused: replacing ``/dev/null`` or a named pipe with a regular file is never what was meant;
* a missing parent folder is refused with the folder named (a typo should not create a tree);
* a symlink is written through: its target is replaced, the link stays;
* an existing file keeps its mode (setuid/setgid/sticky bits included) and, where the process may
  set it, its owner and group; a new file gets ``0666`` less the umask, like ``open(..., "w")``.
"""

from __future__ import annotations

import os
import re
import stat
import sys
import tempfile
from pathlib import Path

from skill_tools.errors import InputError

STDOUT = "-"
_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def resolve_target(path: str | Path, flag: str) -> Path | None:
    """The regular file a write to ``path`` replaces (symlinks followed), or None for stdout.

    InputError (exit 2) naming ``flag`` and the path for anything that must not be replaced."""
    text = str(path)
    if text == STDOUT:
        return None
    if not text.strip():
        raise InputError(flag, "empty path", hint="name a file, or - for standard output")
    if "\x00" in text:
        raise InputError(flag, f"{text!r}: a path cannot hold a NUL character")
    if len(os.fsencode(text)) > 4095 or any(len(os.fsencode(part)) > 255 for part in Path(text).parts):
        raise InputError(flag, f"path of {len(text)} characters is too long for this system (a name is at most "
                               "255 bytes)", hint="name a shorter file")
    if text.endswith(os.sep):
        raise InputError(flag, f"{text} names a folder, not a file", hint="name a file, or - for standard output")
    real = Path(os.path.realpath(text))  # through symlinks, dangling ones included
    try:
        st = os.stat(real)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise InputError(flag, f"{text}: cannot stat: {exc.strerror or exc}") from None
    if st is not None:
        for test, kind in _KINDS:
            if test(st.st_mode):
                raise InputError(flag, f"{text} is {kind}, not a regular file; refusing to replace it",
                                 hint="name a file, or - for standard output")
    parent = real.parent
    if not parent.is_dir():
        raise InputError(flag, f"folder {parent} does not exist", hint=f"create it first (mkdir -p {parent})")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(flag, f"folder {parent} is not writable")
    return real


def write_text(path: str | Path, text: str, *, flag: str = "--out") -> Path | None:
    """Write ``text`` to ``path`` (``-``: stdout) atomically, keeping mode, owner and symlinks.

    Returns the file written, or None for stdout."""
    target = resolve_target(path, flag)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate: refused before any file exists
        raise InputError(flag, f"output holds text that is not Unicode ({ascii(text[exc.start:exc.end])}); nothing written") from None
    if target is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return None
    try:
        old = os.stat(target)
    except FileNotFoundError:
        old = None
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if old is not None:
            _keep_owner(tmp, old)
            os.chmod(tmp, stat.S_IMODE(old.st_mode))  # after chown, which clears setuid/setgid
        else:
            os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return target


def _keep_owner(tmp: str, old: os.stat_result) -> None:
    """The old file's owner and group where allowed (root; or a group the user is in)."""
    for uid, gid in ((old.st_uid, old.st_gid), (-1, old.st_gid)):
        try:
            os.chown(tmp, uid, gid)
            return
        except PermissionError:
            continue


def _umask() -> int:
    """The process umask (read from /proc where it is there, so nothing is changed even briefly)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: Fields of a results document that hold a file path (``artifacts`` holds json/md/png paths).
PATH_FIELDS = frozenset({"log", "log_path", "answers_file", "cache_dir", "json", "md", "png", "results_file"})


def portable(value: str, folder: Path) -> str:
    """``value`` as recorded in a results file written to ``folder``: relative to that folder when
    it lies inside it, else just the file's name (an absolute path names the machine that ran it,
    and means nothing on the next one)."""
    if not os.path.isabs(value):
        return value
    try:
        rel = os.path.relpath(value, os.path.abspath(folder))
    except ValueError:  # another drive (Windows)
        rel = os.pardir
    return rel if rel != os.pardir and not rel.startswith(os.pardir + os.sep) else Path(value).name


#: An absolute folder in front of an installed package's own folder (``/x/y/site-packages/megatron/...``,
#: ``<install dir>/transformer_engine/...``): where the packages lived on the machine that ran it.
_SITE_PREFIX = re.compile(r"(?<![\w.~:/-])(?:/[\w.+-]+)+/(?=(?:megatron|transformer_engine|torch|triton|skill_tools|apex)/)")


def scrub_site_paths(text: str) -> str:
    """``text`` (an error line, a traceback tail) with the install folders of packages replaced by
    ``<site-packages>/``: the package-relative part says where an error was raised; the folder in
    front of it only names the machine."""
    return _SITE_PREFIX.sub("<site-packages>/", text)


def portable_paths(doc, folder: Path):
    """A copy of ``doc`` with every path field made :func:`portable` for ``folder``."""
    if isinstance(doc, dict):
        return {k: portable(v, folder) if k in PATH_FIELDS and isinstance(v, str) else portable_paths(v, folder)
                for k, v in doc.items()}
    if isinstance(doc, list):
        return [portable_paths(v, folder) for v in doc]
    return doc
