"""``skill-tools evals judge-via -- AGENT ARGS…``: a judge command (protocol ``skill-tools-judge/1``)
that asks a model through an agent CLI (``claude -p``, ``codex exec``, any program that reads a prompt
on standard input and prints its reply).

Once per answer it reads the request on stdin, builds the prompt (the packaged judge instruction,
``skill_tools/data/judge_prompt.md``, then the request as a JSON block), starts the agent with that
prompt on its standard input (argument list, no shell; nothing of the task or the answer in argv),
and prints the verdicts it finds in the reply: the reply itself as JSON, a ``{"result": "…"}``
envelope (``claude -p --output-format json``), or the last ``{"verdicts": …}`` object in its text
(a fenced block or a bare object). A reply without one, an agent that fails or runs past
``--timeout`` exits 2 with the reason, which ``--judge-cmd`` reports on that answer while the
deterministic score stands.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from importlib import resources
from typing import Any

from skill_tools.evaluation.judge import MAX_OUTPUT, PROTOCOL, parse_reply

EXIT_NO_VERDICT = 2
_FENCE = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.S)


def instruction() -> str:
    return resources.files("skill_tools.data").joinpath("judge_prompt.md").read_text(encoding="utf-8")


def prompt(req: dict[str, Any]) -> str:
    return (instruction().rstrip() + "\n\n## The request\n\n```json\n"
            + json.dumps(req, ensure_ascii=False, indent=1) + "\n```\n\nReply with the JSON object only.\n")


def verdicts_in(reply: str, n_assertions: int) -> list[dict[str, Any]]:
    """The verdicts a model's reply carries (ValueError naming why none could be read)."""
    candidates: list[str] = [reply.strip()]
    try:
        outer = json.loads(reply)
    except json.JSONDecodeError:
        outer = None
    if isinstance(outer, dict) and isinstance(outer.get("result"), str):  # an agent CLI's JSON envelope
        candidates.insert(0, outer["result"].strip())
    for text in list(candidates):
        candidates += [m.group(1) for m in _FENCE.finditer(text)][::-1]
        start = text.rfind('{"verdicts"')
        if start >= 0:
            try:
                obj, _ = json.JSONDecoder().raw_decode(text[start:])
                candidates.append(json.dumps(obj))
            except json.JSONDecodeError:
                pass
    last_error = "the reply carries no JSON object with a verdicts list"
    for text in candidates:
        try:
            return parse_reply(text, n_assertions)
        except ValueError as exc:
            if "not JSON" not in str(exc) and "no \"verdicts\"" not in str(exc):
                last_error = str(exc)
    raise ValueError(last_error)


def main(argv: list[str], timeout_s: float = 110.0) -> int:
    if not argv:
        print("usage: skill-tools evals judge-via [--timeout S] -- AGENT [ARGS…]  (a --judge-cmd)", file=sys.stderr)
        return EXIT_NO_VERDICT
    try:
        req = json.load(sys.stdin)
    except (ValueError, OSError) as exc:
        print(f"judge-via: the request is not JSON ({exc})", file=sys.stderr)
        return EXIT_NO_VERDICT
    if not isinstance(req, dict) or req.get("protocol") != PROTOCOL:
        print(f"judge-via: the request is not protocol {PROTOCOL}", file=sys.stderr)
        return EXIT_NO_VERDICT
    n = len((req.get("task") or {}).get("expected_behavior") or [])
    try:
        proc = subprocess.run(argv, shell=False, input=prompt(req).encode("utf-8"), capture_output=True,
                              timeout=timeout_s)
    except subprocess.TimeoutExpired:
        print(f"judge-via: {argv[0]} gave no reply within {timeout_s:g}s", file=sys.stderr)
        return EXIT_NO_VERDICT
    except OSError as exc:
        print(f"judge-via: {argv[0]} could not start: {exc}", file=sys.stderr)
        return EXIT_NO_VERDICT
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", errors="replace").strip().splitlines()
        print(f"judge-via: {argv[0]} exited {proc.returncode}" + (f": {err[-1][:200]}" if err else ""), file=sys.stderr)
        return EXIT_NO_VERDICT
    try:
        verdicts = verdicts_in(proc.stdout[:MAX_OUTPUT].decode("utf-8", errors="replace"), n)
    except ValueError as exc:
        print(f"judge-via: {exc}", file=sys.stderr)
        return EXIT_NO_VERDICT
    print(json.dumps({"verdicts": verdicts}))
    return 0
