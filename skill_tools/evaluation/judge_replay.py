"""``skill-tools evals judge-replay VERDICTS``: a judge command (protocol ``skill-tools-judge/1``) that
answers from verdicts recorded earlier, so a judge that works in batches can serve ``--judge-cmd``.

The round trip: ``evals score --judge-export REQUESTS.jsonl`` writes one ``{"key", "request"}`` per
answer; the batch judge (a model's batch API, a reviewer, another tool) writes one
``{"key", "verdicts": [...]}`` per request; ``evals score --judge-cmd 'skill-tools evals judge-replay
VERDICTS.jsonl'`` then attaches them. The key is :func:`judge.request_key` of the task id and the exact
answer text, so a verdict never lands on an answer it did not judge: an answer without a recorded
verdict gets exit 2 and its report says so (the deterministic score stands).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from skill_tools.evaluation.judge import PROTOCOL, request_key

EXIT_NO_VERDICT = 2


def load_verdicts(path: Path) -> dict[str, Any]:
    """key -> the recorded reply (``{"verdicts": [...]}``); ValueError naming the bad line."""
    out: dict[str, Any] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{n}: not JSON ({exc.msg})") from None
        if not isinstance(row, dict) or not isinstance(row.get("key"), str) or not isinstance(row.get("verdicts"), list):
            raise ValueError(f'{path}:{n}: each line needs "key" (string) and "verdicts" (list)')
        out[row["key"]] = {"verdicts": row["verdicts"]}
    return out


def reply(verdicts: dict[str, Any], req: dict[str, Any]) -> tuple[int, str]:
    """(exit code, text) for one request: the recorded reply as JSON, or exit 2 and why not."""
    if not isinstance(req, dict) or req.get("protocol") != PROTOCOL:
        return EXIT_NO_VERDICT, f"judge-replay: the request is not protocol {PROTOCOL}"
    task_id = str((req.get("task") or {}).get("id"))
    key = request_key(task_id, str(req.get("answer", "")))
    if key not in verdicts:
        return EXIT_NO_VERDICT, f"judge-replay: no recorded verdict for task {task_id} (key {key})"
    return 0, json.dumps(verdicts[key])


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: skill-tools evals judge-replay VERDICTS.jsonl  (a --judge-cmd; the request arrives on stdin)",
              file=sys.stderr)
        return EXIT_NO_VERDICT
    try:
        verdicts = load_verdicts(Path(argv[0]))
        req = json.load(sys.stdin)
    except (OSError, ValueError) as exc:
        print(f"judge-replay: {exc}", file=sys.stderr)
        return EXIT_NO_VERDICT
    code, text = reply(verdicts, req)
    print(text, file=sys.stdout if code == 0 else sys.stderr)
    return code
