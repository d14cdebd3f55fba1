"""Read one input the careful way: bounded by bytes read, whatever the input is.

Every command reads its inputs (configs, results files, answers) through :func:`read_bytes` /
:func:`read_text`:

* ``-`` is standard input; a regular file, a pipe (``<(...)``, ``/dev/stdin``), a FIFO or a
  character device are read the same way, in chunks, and the read stops one byte past the limit:
  the size a ``stat`` reports is 0 for devices and pipes and is never trusted (``/dev/zero`` is
  refused after reading 5 MB, not after filling the memory);
* a FIFO with no writer is opened without blocking (an empty input, not a hang);
* a folder, a missing file, a name over the system's limits (``File name too long``) and an
  unreadable file each become one :class:`~skill_tools.errors.InputError` naming the input;
* text is UTF-8 (a BOM is accepted) or UTF-16/UTF-32 with a BOM (decoded); UTF-16 without a BOM is
  recognised by its zero bytes and decoded; anything else with zero bytes is called binary.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from pathlib import Path

from skill_tools.errors import InputError

#: Config files are small; anything larger is not a config (and would be slow to read).
MAX_CONFIG_BYTES = 5 * 1024 * 1024
_CHUNK = 1 << 16
STDIN = "-"


def read_bytes(path: str | Path, *, limit: int = MAX_CONFIG_BYTES, what: str = "config file") -> bytes:
    """At most ``limit`` bytes of ``path`` (``-``: stdin); more is refused, after reading
    ``limit + 1`` bytes and no more."""
    source = str(path)
    if source == STDIN:
        return _bounded(sys.stdin.buffer, "<stdin>", limit, what)
    fd = _open(source)
    try:
        with os.fdopen(fd, "rb", buffering=0) as fh:
            return _bounded(fh, source, limit, what)
    except OSError as exc:
        raise InputError(source, f"cannot read: {exc.strerror or exc}") from None


def read_text(path: str | Path, *, limit: int = MAX_CONFIG_BYTES, what: str = "config file") -> str:
    """:func:`read_bytes` decoded by :func:`decode`."""
    source = "<stdin>" if str(path) == STDIN else str(path)
    return decode(read_bytes(path, limit=limit, what=what), source, what=what)


def stat_input(source: str) -> os.stat_result:
    """``os.stat`` of an input path, every refusal (NUL in the name, missing, too long, a folder,
    a link loop) one InputError naming it."""
    if "\x00" in source:
        raise InputError(repr(source), "a path cannot hold a NUL character")
    try:
        st = os.stat(source)
    except (OSError, ValueError) as exc:
        raise _path_error(source, exc) from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError(source, "is a folder, not a file", hint="pass the file itself")
    return st


def _open(source: str) -> int:
    st = stat_input(source)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) if stat.S_ISFIFO(st.st_mode) else os.O_RDONLY
    try:
        fd = os.open(source, flags)
    except OSError as exc:
        raise _path_error(source, exc) from None
    if flags != os.O_RDONLY:  # a FIFO: opened without waiting for a writer, read blocking
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    return fd


def _path_error(source: str, exc: OSError | ValueError) -> InputError:
    shown = source if len(source) <= 120 else source[:60] + "..." + source[-40:]
    if not isinstance(exc, OSError):
        return InputError(shown, f"not a usable path: {exc}")
    if exc.errno == errno.ELOOP:
        return InputError(shown, "symbolic link loop", hint="point the link at a file")
    if exc.errno == errno.ENOENT:
        return InputError(shown, "no such file", hint="check the path")
    if exc.errno == errno.ENAMETOOLONG:
        return InputError(shown, f"path of {len(source)} characters is too long for this system (a file name "
                                 "is at most 255 bytes)", hint="pass an existing file")
    if exc.errno == errno.EACCES:
        return InputError(shown, "permission denied")
    return InputError(shown, f"cannot open: {exc.strerror or exc}")


def _bounded(fh, source: str, limit: int, what: str) -> bytes:
    chunks: list[bytes] = []
    total = 0
    while total <= limit:
        try:
            chunk = fh.read(min(_CHUNK, limit + 1 - total))
        except OSError as exc:
            raise InputError(source, f"cannot read: {exc.strerror or exc}") from None
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    if total > limit:
        raise InputError(source, f"more than {_size(limit)} read; a {what} is smaller than that",
                         hint="pass the file itself, not a device, log or checkpoint")
    return b"".join(chunks)


def _size(n: int) -> str:
    return f"{n // (1024 * 1024)} MB" if n >= 1024 * 1024 else f"{n} bytes"


_BOMS = ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
         (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))


def decode(data: bytes, source: str, *, what: str = "config file") -> str:
    """Text of ``data``: UTF-8 (BOM or not), UTF-16/32 with a BOM, UTF-16 without one; else an
    InputError that says which encoding it looks like."""
    encoding = encoding_of(data)
    if encoding is None:
        raise InputError(source, f"binary data, not a {what}", hint="pass a text file")
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1 if encoding == "utf-8" else None
        name = "UTF-8" if encoding == "utf-8" else encoding.upper()
        raise InputError(source, f"not valid {name} text at byte {exc.start}", line=line,
                         hint="save the file as UTF-8") from None
    if "\x00" in text:
        raise InputError(source, f"binary data, not a {what}", hint="pass a text file")
    return text


def encoding_of(data: bytes) -> str | None:
    """The encoding :func:`decode` reads ``data`` with (``utf-8-sig`` for UTF-8 with a BOM);
    None for binary data."""
    encoding = next((enc for bom, enc in _BOMS if data.startswith(bom)), None)
    if encoding is None and b"\x00" in data[:8192]:
        return _utf16_guess(data[:8192])
    return encoding or "utf-8"


def _utf16_guess(head: bytes) -> str | None:
    """``utf-16-le``/``-be`` when every other byte of mostly-ASCII text is zero."""
    even, odd = head[0::2], head[1::2]
    if len(head) >= 4:
        if odd.count(0) >= 0.9 * len(odd) and even.count(0) == 0:
            return "utf-16-le"
        if even.count(0) >= 0.9 * len(even) and odd.count(0) == 0:
            return "utf-16-be"
    return None
