"""No committed file names a folder of the machine that built or ran it.

Results files record paths relative to the results folder (``skill_tools.output_file.portable``);
an absolute temp or work folder means nothing on the next machine and tells about this one.
Verbatim logs (``*.log``, ``*.log.gz``) are exempt: they are evidence quoted as captured, public
issue logs included. So are the answers of held-out eval sets (``evals/heldout-*/**/answers/``): agent
answers quoted as written, whose commands may name an agent's own temp files.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
#: Folders that only ever belong to one machine (temp, work, home of root, macOS homes, clusters).
MACHINE_DIRS = ("tmp", "var/tmp", "work", "root", "Users", "scratch", "lustre")
EXEMPT_SUFFIXES = (".log", ".log.gz", ".gz", ".png", ".whl")


def _pattern() -> re.Pattern[str]:
    dirs = [re.escape(d) for d in MACHINE_DIRS]
    # this machine's own home and checkout parent, wherever they are
    for extra in (Path.home(), REPO.parent):
        text = str(extra).strip("/")
        if text and text.count("/") >= 1 and not any(text == d or text.startswith(d + "/") for d in MACHINE_DIRS):
            dirs.append(re.escape(text))
    return re.compile(r"(?<![\w.~/-])/(?:" + "|".join(dirs) + r")/[\w.-]")


def _committed_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
        return [REPO / name for name in out.decode().split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the committed files are unknown")


def offenders(files: list[Path], pattern: re.Pattern[str]) -> list[str]:
    found = []
    for path in files:
        if path.name.endswith(EXEMPT_SUFFIXES) or path == Path(__file__).resolve() or not path.is_file():
            continue
        rel = path.relative_to(REPO).parts
        if len(rel) > 2 and rel[0] == "evals" and rel[1].startswith("heldout-") and "answers" in rel:
            continue
        data = path.read_bytes()
        if b"\0" in data[:4096]:
            continue
        for n, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
            m = pattern.search(line)
            if m:
                found.append(f"{path.relative_to(REPO)}:{n}: {line[max(0, m.start() - 30):m.end() + 40].strip()}")
    return found


def test_no_committed_file_holds_a_machine_path():
    bad = offenders(_committed_files(), _pattern())
    assert not bad, "absolute machine paths (record them relative to the file's folder):\n" + "\n".join(bad[:30])


def test_the_check_catches_what_it_should():
    pattern = _pattern()
    assert pattern.search('"log": "/tmp/bo2/logs/eager-t0.log"')
    assert pattern.search("see /work/shared/reference/pain_points.md")
    assert not pattern.search("https://github.com/x/work/y and /dev/null and ~/tmp/x and logs/eager.log")


def test_results_writers_record_paths_relative_to_the_results_folder(tmp_path):
    from skill_tools.harness.results import write_results
    from skill_tools.output_file import portable

    out = tmp_path / "run"
    write_results({"variants": [{"trials": [{"log": str(out / "logs" / "eager-t0.log")}]}],
                   "answers_file": str(tmp_path.parent / "elsewhere" / "a.jsonl")}, out / "r.json")
    text = (out / "r.json").read_text()
    assert '"log": "logs/eager-t0.log"' in text and '"answers_file": "a.jsonl"' in text
    assert str(tmp_path) not in text
    assert portable("logs/x.log", out) == "logs/x.log"
    assert portable(os.sep + "x.log", out) == "x.log"
