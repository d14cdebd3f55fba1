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
CHUNK_BYTES = 1 << 20
#: Longest line kept whole. Real log lines are far shorter (an iteration line is < 2 kB); a longer
#: one (a tqdm bar redrawn with \r for hours, a dumped tensor) keeps its head and its tail.
MAX_LINE_CHARS = 1 << 16

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
    import stat

    from skill_tools.input_file import stat_input

    source = str(path)
    if not stat.S_ISREG(stat_input(source).st_mode):  # missing, too long, folder: one line each
        raise InputError(source, "not a regular file (a pipe or device); a log is read twice",
                         hint=f"save it to a file first: cat {source} > run.log")
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
        self.long_lines = 0
        self.no_final_newline = False
        self.is_gzip, _ = _sniff(self.path)

    def lines(self) -> Iterator[str]:
        """Raw lines with their newline (the last one without, when the file lacks it)."""
        pending = None
        for batch in self.batches():
            if pending is not None:
                yield pending + "\n"
            if not batch:
                continue
            for line in batch[:-1]:
                yield line + "\n"
            pending = batch[-1]
        if pending is not None:
            yield pending if self.no_final_newline else pending + "\n"

    def batches(self) -> Iterator[list[str]]:
        """Lists of lines (newline removed), one list per piece of the file read: the parser works a
        block at a time, so a million short lines do not each cost a generator step."""
        yield from _split_batches(self._gzip_chunks() if self.is_gzip else self._plain_chunks(), self)
        if self.no_final_newline:
            self.warnings.append("last line has no newline: the log may be truncated mid-line")
        if self.long_lines:
            self.warnings.append(
                f"{self.long_lines} line(s) longer than {MAX_LINE_CHARS:,} characters: kept their first and last "
                f"{MAX_LINE_CHARS // 2:,} characters")

    def _plain_chunks(self) -> Iterator[str]:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        with open(self.path, "rb") as fh:
            while True:
                raw = fh.read(CHUNK_BYTES)
                if not raw:
                    break
                yield decoder.decode(raw)
        yield decoder.decode(b"", final=True)

    def _gzip_chunks(self) -> Iterator[str]:
        """Stream-decompress (multi-member aware) in bounded pieces: a small file that inflates to a
        huge line never has more than CHUNK_BYTES of it in memory. A truncated or corrupt tail keeps
        what came before."""
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        z = zlib.decompressobj(16 + zlib.MAX_WBITS)
        with open(self.path, "rb") as fh:
            while True:
                raw = fh.read(CHUNK_BYTES)
                if not raw:
                    break
                try:
                    while raw:
                        data = z.decompress(raw, CHUNK_BYTES)
                        raw = z.unconsumed_tail
                        if z.eof and z.unused_data:  # concatenated gzip members
                            raw = z.unused_data + raw
                            z = zlib.decompressobj(16 + zlib.MAX_WBITS)
                        if data:
                            yield decoder.decode(data)
                except zlib.error as exc:
                    self.warnings.append(f"gzip data is corrupt ({exc}); parsed the text before that point")
                    break
        if not z.eof:
            self.warnings.append("gzip stream ends early (truncated file); parsed the text before that point")
        yield decoder.decode(b"", final=True)


def _split_batches(chunks: Iterable[str], owner: "LogFile") -> Iterator[list[str]]:
    """Lists of lines (without newline) from text chunks. A line longer than MAX_LINE_CHARS keeps its
    first and last MAX_LINE_CHARS // 2 characters (the tail of a tqdm line is its final state), so
    memory stays bounded by the cap plus one chunk whatever the input."""
    half = MAX_LINE_CHARS // 2
    head = ""  # the start of a line still being read
    tail = ""  # for an overlong line: its last `half` characters so far
    dropped = 0
    for chunk in chunks:
        if not chunk:
            continue
        parts = chunk.split("\n")
        last = parts.pop()  # no newline after it (yet)
        if parts:
            first = parts[0]
            if dropped or len(head) + len(first) > MAX_LINE_CHARS:
                parts[0] = _overlong(head, tail, first, dropped, half, owner)
            else:
                parts[0] = head + first
            head, tail, dropped = "", "", 0
            if len(parts) > 1 and max(map(len, parts)) > MAX_LINE_CHARS:
                parts[1:] = [line if len(line) <= MAX_LINE_CHARS else _overlong("", "", line, 0, half, owner)
                             for line in parts[1:]]
            yield parts
        if dropped or len(head) + len(last) > MAX_LINE_CHARS:
            text = head + last if not dropped else tail + last
            if not dropped:
                head, text = text[:half], text[half:]
            dropped += max(0, len(text) - half)
            tail = text[-half:]
        else:
            head += last
    if dropped or head:
        owner.no_final_newline = True
        yield [_overlong(head, tail, "", dropped, half, owner) if dropped else head]


def _overlong(head: str, tail: str, rest: str, dropped: int, half: int, owner: "LogFile") -> str:
    owner.long_lines += 1
    if not dropped:
        line = head + rest
        return line[:half] + f" …[{len(line) - 2 * half:,} characters dropped]… " + line[-half:]
    text = (tail + rest)
    dropped += max(0, len(text) - half)
    return head + f" …[{dropped:,} characters dropped]… " + text[-half:]


def read_lines(path: str | Path) -> Iterator[str]:
    """Yield raw text lines of a log file (plain or gzip)."""
    yield from LogFile(path).lines()
