"""Stream a training log as clean logical lines, whatever shape the file is in.

Real logs arrive gzip-compressed, with ANSI colours, with tqdm ``\\r`` redraws, and with the
rank prefixes that launchers add (torchrun ``[rank0]:``, Slurm ``srun -l`` ``0: ``). Everything
downstream wants plain text plus the rank, so this module does that once and nothing else.
Lines are yielded one at a time: a file is never held in memory.
"""

from __future__ import annotations

import codecs
import re
import zlib
from pathlib import Path
from typing import Iterable, Iterator, NamedTuple

from skill_tools.errors import InputError

GZIP_MAGIC = b"\x1f\x8b"
_SNIFF_BYTES = 8192

# CSI sequences (colours, cursor moves) and OSC sequences (terminal titles).
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")

# torchrun (`--tee`, `--local-ranks-filter`, tracebacks): "[rank3]: ..." / "[default0]:...";
# Slurm `srun -l`: "3: ..." (possibly right-aligned " 3: ").
_RANK_PREFIX = re.compile(r"\[(?:rank|default)(\d+)\]:[ ]?|[ ]{0,3}(\d{1,5}): ")


class LogLine(NamedTuple):
    """One logical line: 1-based physical line number, rank (None when unprefixed), text."""

    line_no: int
    rank: int | None
    text: str
    raw: str


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text) if "\x1b" in text else text


def split_rank(text: str) -> tuple[int | None, str]:
    """Remove one launcher rank prefix; returns (rank or None, rest)."""
    if not text:
        return None, text
    c = text[0]
    if c == "[" or c == " " or c.isdigit():
        m = _RANK_PREFIX.match(text)
        if m:
            rank = m.group(1) or m.group(2)
            return int(rank), text[m.end():]
    return None, text


def clean_lines(lines: Iterable[str], start: int = 1) -> Iterator[LogLine]:
    """Turn raw text lines into LogLines: ANSI removed, ``\\r`` segments split, rank prefix parsed.

    A tqdm bar redrawn with ``\\r`` becomes several logical lines with the same ``line_no``; empty
    segments are dropped.
    """
    line_no = start - 1
    for raw in lines:
        line_no += 1
        if raw.endswith("\n"):
            raw = raw[:-1]
        if "\x1b" in raw:
            raw = _ANSI.sub("", raw)
        if "\r" in raw:
            for seg in raw.split("\r"):
                if seg:
                    rank, text = split_rank(seg)
                    yield LogLine(line_no, rank, text, seg)
            continue
        rank, text = split_rank(raw)
        yield LogLine(line_no, rank, text, raw)


def _sniff(path: Path) -> tuple[bool, bytes]:
    """(is_gzip, first decompressed bytes). Raises InputError for missing/empty/binary input."""
    source = str(path)
    if not path.exists():
        raise InputError(source, "no such file", hint="check the path")
    if path.is_dir():
        raise InputError(source, "is a directory, expected a log file")
    try:
        with open(path, "rb") as fh:
            head = fh.read(_SNIFF_BYTES)
    except OSError as exc:
        raise InputError(source, f"cannot read: {exc.strerror or exc}") from None
    if not head:
        raise InputError(source, "empty file", hint="pass the stdout/stderr log of a training run")
    is_gz = head[:2] == GZIP_MAGIC
    if is_gz:
        # Decompress the start only; a truncated tail is reported later, with what was read.
        try:
            head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, _SNIFF_BYTES)
        except zlib.error as exc:
            raise InputError(source, f"gzip data is corrupt: {exc}") from None
        if not head:
            raise InputError(source, "gzip file decompresses to nothing (empty log)")
    if b"\x00" in head:
        raise InputError(
            source,
            "looks like a binary file (NUL bytes), not a text log",
            hint="pass the text log; .gz files are read directly",
        )
    return is_gz, head


class LogFile:
    """A log file read as a stream of raw lines, remembering what was odd about it.

    ``warnings`` collects non-fatal problems (a gzip stream that ends early, a last line without a
    newline) so the caller can report them next to whatever was parsed.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.source = str(path)
        self.warnings: list[str] = []
        self.is_gzip, _ = _sniff(self.path)

    def lines(self) -> Iterator[str]:
        last = ""
        for line in self._gzip_lines() if self.is_gzip else self._plain_lines():
            last = line
            yield line
        if last and not last.endswith("\n"):
            self.warnings.append("last line has no newline: the log may be truncated mid-line")

    def _plain_lines(self) -> Iterator[str]:
        with open(self.path, encoding="utf-8", errors="replace", newline="\n") as fh:
            while True:
                chunk = fh.readlines(1 << 20)
                if not chunk:
                    return
                yield from chunk

    def _gzip_lines(self) -> Iterator[str]:
        """Stream-decompress (multi-member aware); a truncated or corrupt tail keeps what came before."""
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        z = zlib.decompressobj(16 + zlib.MAX_WBITS)
        pending = ""
        with open(self.path, "rb") as fh:
            while True:
                raw = fh.read(1 << 20)
                if not raw:
                    break
                try:
                    data = z.decompress(raw)
                    while z.eof and z.unused_data:  # concatenated gzip members
                        rest = z.unused_data
                        z = zlib.decompressobj(16 + zlib.MAX_WBITS)
                        data += z.decompress(rest)
                except zlib.error as exc:
                    self.warnings.append(f"gzip data is corrupt ({exc}); parsed the text before that point")
                    break
                text = pending + decoder.decode(data)
                lines = text.split("\n")
                pending = lines.pop()
                for line in lines:
                    yield line + "\n"
        if not z.eof:
            self.warnings.append("gzip stream ends early (truncated file); parsed the text before that point")
        pending += decoder.decode(b"", final=True)
        if pending:
            yield pending


def read_lines(path: str | Path) -> Iterator[str]:
    """Yield raw text lines of a log file (plain or gzip)."""
    yield from LogFile(path).lines()
