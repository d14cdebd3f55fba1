"""Line prefixes that launchers, loggers and paste sites put in front of the text a program printed.

A pasted line is rarely what the program wrote: torchrun adds ``[rank3]:``, ``srun -l`` adds ``0:``,
Ray adds ``(RayWorkerWrapper pid=12, ip=…)``, vLLM's logger ``ERROR 03-03 07:20:16 [core.py:303]``,
SGLang ``[2024-10-22 06:31:49 TP0]``, TRT-LLM ``[10/30/2025-07:59:15] [TRT-LLM] [E]``, glog
``E0627 14:26:46.636043 681062 file.cc:12]``, GitHub Actions and loguru timestamps, docker compose
``service-1  |``, pytest ``E   ``, a markdown quote ``>``, a k8s viewer's ``│``. Tracebacks are
recognised by their shape (``Traceback …`` at the start, indented frames, ``Error: …`` at column 0),
so every such prefix is removed first, however many are stacked.

``strip`` returns what was removed as a ``Prefix``: the rank when one was named (``[rank3]``,
``TP3``, ``rank=3``), the source tag that keeps interleaved processes apart, the stack the format
belongs to (``sglang``/``vllm``/``tensorrt-llm``) and whether the line carried a log prefix at all
(a text with none is probably not a log).
"""

from __future__ import annotations

import re
from typing import NamedTuple

MAX_PASSES = 6

# (pattern, kind). Tried in order at the start of the line, repeatedly, until none matches.
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p), k) for p, k in (
    # torchrun / launcher ranks: "[rank3]: ", "[rank3] ", "[rank3]V0304" (glog glued), "[default0]:"
    (r"\[(?:rank|default)(?P<rank>\d+)\]:? ?", "rank"),
    # srun -l: "0: ", " 3: "
    (r" {0,3}(?P<rank>\d{1,5}): (?=\S)", "rank"),
    # a pid column before torchrun's prefix: "[80746] [rank0]:"
    (r"\[\d+\] (?=\[rank\d+\])", "process"),
    # mpirun --tag-output: "[1,17]<stdout>:"
    (r"\[\d+,(?P<rank>\d+)\]<std(?:out|err)>:", "rank"),
    # Ray / vLLM / SGLang process tags: "(RayWorkerWrapper pid=1, ip=1.2.3.4) ", "(worker1, rank=1, pid=6813, ...) "
    (r"\((?P<src>[A-Za-z_][\w.-]*)(?:[ ,][^()]{0,80}?)??(?:rank=(?P<rank>\d+))?[^()]{0,60}?\bpid=\d+[^()]{0,60}\) ?",
     "process"),
    # docker compose / k8s tools: "deepseek-r1-1  | ", "llama-swap  | "
    (r"(?P<src>[A-Za-z][\w.]*[-_][\w.-]*) +\| (?=\S| )", "service"),
    # box-drawing frames of terminal viewers: "│ "
    (r"[│┃] ", "frame"),
    # GitHub Actions / RFC 3339 / python logging / loguru: "2025-12-05T04:32:52.7840494Z ", "2026-02-15 13:04:34.603 | INFO | m:f:1 - "
    (r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?:? (?:\| *[A-Z]+ *\| [\w.:<>-]+ - )?", "time"),
    # syslog: "Dec 01 16:52:55 "
    (r"[A-Z][a-z]{2} \d\d \d\d:\d\d:\d\d ", "time"),
    # SGLang: "[2024-10-22 06:31:49 TP0] ", "[23:17:01 TP7] ", "[2025-10-06 20:05:22 DP0 TP0] "
    (r"\[(?:\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d(?:[.,]\d+)?(?P<tags>(?: (?:DP|TP|PP|EP)\d+)*)\] ", "sglang"),
    # TRT-LLM: "[10/30/2025-07:59:15] "
    (r"\[\d\d/\d\d/\d{4}-\d\d:\d\d:\d\d\] ", "time"),
    # glog (PyTorch C++, XLA, TensorFlow): "E0627 14:26:46.636043  681062 file.cc:2916] ", "V0304 17:57:43.88 140 f.py:1] "
    (r"(?P<lvl>[IWEFV])\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [^\]\s]+:\d+\] ", "level"),
    (r"(?P<lvl>[IWEF]) [\w./-]+\.\w+:\d+\] ", "level"),
    # vLLM logger: "ERROR 03-03 07:20:16 [core.py:303] ", "INFO 04-28 20:50:23 model_runner.py:791] "
    (r"(?P<lvl>INFO|WARNING|ERROR|DEBUG|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[?[\w./-]+:\d+\] ", "vllm"),
    # level tags: "[TRT-LLM] ", "[E] ", "[NVSHARE][DEBUG]: ", "[INFO ] ", "[ffn] ", "[E ProcessGroupNCCL.cpp:754] "
    (r"\[(?P<tag>TRT-LLM|TensorRT-LLM)\] ?", "trtllm"),
    (r"\[(?P<lvl>[IWEFD]|INFO|WARN|WARNING|ERROR|DEBUG|CRITICAL|FATAL) *\] ?", "level"),
    (r"\[[A-Za-z][\w.-]{0,24}\](?:\[[A-Za-z]+\])?:? (?=\S)", "tag"),
    (r"\[(?P<lvl>[IWEF]) [\w.-]+:\d+\] ", "level"),
    # pytest failure lines: "E       RuntimeError: ..."
    (r"(?P<lvl>E) {3,}(?=\S)", "pytest"),
    # markdown quote of a pasted log: "> "
    (r"> ?(?=\S|$)", "quote"),
))
_FIRST = frozenset("[( 0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz│┃|>")
_STACK_OF_KIND = {"sglang": "sglang", "vllm": "vllm", "trtllm": "tensorrt-llm"}
_TP = re.compile(r"TP(\d+)")
_VLLM_SOURCES = ("EngineCore", "Worker", "RayWorkerWrapper", "VllmWorker", "APIServer")


class Prefix(NamedTuple):
    rank: int | None
    source: str | None
    stack: str | None
    logged: bool  # a log prefix (time, level, rank, process tag) was there
    error: bool = False  # the prefix gave an error level (E, ERROR, CRITICAL, FATAL)


NONE = Prefix(None, None, None, False)
_ERROR_LEVELS = frozenset({"E", "F", "ERROR", "CRITICAL", "FATAL"})


def strip(text: str) -> tuple[Prefix, str]:
    """(what was removed, the rest). Cheap for lines that start with none of the prefixes' characters."""
    if not text or text[0] not in _FIRST:
        return NONE, text
    rank = source = stack = None
    logged = error = False
    for _ in range(MAX_PASSES):
        for rx, kind in _PATTERNS:
            m = rx.match(text)
            if m is None or m.end() == 0:
                continue
            gd = m.groupdict()
            error = error or gd.get("lvl") in _ERROR_LEVELS
            if gd.get("rank") is not None:
                rank = int(gd["rank"])
            if kind == "sglang":
                tp = _TP.search(gd.get("tags") or "")
                if tp:
                    rank = int(tp.group(1))
            if gd.get("src") and source is None:
                source = gd["src"]
                if source.startswith(_VLLM_SOURCES):
                    stack = stack or "vllm"
            if kind != "sglang" or gd.get("tags"):  # a bare "[date time]" is any logger's
                stack = stack or _STACK_OF_KIND.get(kind)
            logged = logged or kind not in ("quote", "frame")
            text = text[m.end():]
            break
        else:
            break
        if not text:
            break
    return Prefix(rank, source, stack, logged, error), text
