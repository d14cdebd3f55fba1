"""Doc-test: every ``skill-tools ...`` command the package shows runs against the CLI.

Sources: inline code and command lines of fenced blocks in SKILL.md, references/*.md and
README.md; ``expected_script`` of evals/evals.json; the ``skill-tools`` lines of scripts/demo.sh.
Each command is (1) parsed by the CLI's own argument parser (the subcommand exists, every flag
and choice is accepted) and (2), where it needs no GPU, run in a subprocess with its placeholders
(``CFG``, ``<config>``, ``eager.log``, ``ANSWERS.jsonl`` ...) bound to real files of the package:
the exit code must be one the command documents (0 clean, 1 findings) and ``--json`` output must
be a JSON object with the keys the docs promise. GPU commands (bench, precheck without
``--results``) are parsed only.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from skill_tools.cli import COMMANDS, build_parser

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "SKILL.md", REPO / "README.md", *sorted((REPO / "references").glob("*.md"))]
CONFIG = REPO / "examples" / "bridge_llama_dense_fixed.yaml"
EAGER_LOG = REPO / "tests" / "fixtures" / "logs" / "synthetic_mlm_eager.log"
GRAPH_LOG = REPO / "tests" / "fixtures" / "logs" / "synthetic_mlm_full_iteration.log"
ANSWERS = REPO / "evals" / "answers" / "samples.jsonl"
#: Commands that need a GPU (or start one): parsed, not run.
GPU_ONLY = {"bench", "precheck"}
#: Top-level keys of each command's --json output (from references/helpers.md and README.md).
JSON_KEYS = {
    "validate": {"ok", "findings"},
    "apply": {"ok", "changes", "findings"},
    "recommend": {"ok", "impl"},
    "lint": {"ok"},
    "card": {"ok"},
}


@dataclass(frozen=True)
class Shown:
    where: str
    text: str

    @property
    def id(self) -> str:
        return f"{self.where}: {self.text[:70]}"


_SPAN = re.compile(r"`(skill-tools [^`]+)`")


def shown_commands() -> list[Shown]:
    out: list[Shown] = []
    for path in DOCS:
        fenced = False
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            where = f"{path.relative_to(REPO)}:{n}"
            if line.lstrip().startswith(("```", "~~~")):
                fenced = not fenced
                continue
            if fenced:
                body = line.strip()
                body = body[2:] if body.startswith("$ ") else body
                if body.startswith("skill-tools "):
                    out.append(Shown(where, body))
                continue
            out += [Shown(where, m.group(1)) for m in _SPAN.finditer(line)]
    tasks = json.loads((REPO / "evals" / "evals.json").read_text(encoding="utf-8"))
    for task in tasks:
        if task.get("expected_script"):
            out.append(Shown(f"evals.json:{task['id']}", task["expected_script"]))
    assigned: dict[str, str] = {}  # the demo's own plain NAME=path assignments, expanded in its commands
    for n, line in enumerate((REPO / "scripts" / "demo.sh").read_text(encoding="utf-8").splitlines(), 1):
        a = re.fullmatch(r"\s*([A-Za-z_]\w*)=([\w./-]+)", line)
        if a:
            assigned[a.group(1)] = a.group(2)
        m = re.search(r"-- (skill-tools .+)$", line)
        if m:
            text = re.sub(r"\$([A-Za-z_]\w*)", lambda v: assigned.get(v.group(1), v.group(0)), m.group(1))
            out.append(Shown(f"scripts/demo.sh:{n}", text))
    return out


SHOWN = shown_commands()


def _argv(text: str, tmp: Path) -> list[str]:
    """The command as an argument list: comments and optional ``[...]`` parts dropped, the first
    alternative of ``a|b`` taken, placeholders bound to real files."""
    text = re.sub(r"\s#\s.*$", "", text).strip()
    text = re.sub(r"\s\[[^\]]*\]", "", text)  # [--config CFG] [GRAPH_LOG]: optional
    out: list[str] = []
    for tok in shlex.split(text.replace("...", "…"))[1:]:
        if tok == "…":
            if out and out[-1] in EXAMPLE_VALUES:
                out.append(EXAMPLE_VALUES[out[-1]])  # "--impl …": a value of the documented kind
            continue
        if "|" in tok and not tok.startswith("'"):
            tok = tok.split("|")[0]
        out.append(_bind(tok, tmp))
    return [t for t in out if t]


#: What an elided value ("--impl …") stands for.
EXAMPLE_VALUES = {"--impl": "transformer_engine", "--scope": "attn", "--variants": "eager,full_iteration"}


def _bind(tok: str, tmp: Path) -> str:
    config = tmp / "config.yaml"
    if not config.exists():
        shutil.copy(CONFIG, config)
    if tok in ("CFG", "<config>", "cfg.yaml", "$TMP/config.yaml", "\"$TMP/config.yaml\"", "$BAD", "$MOE") \
            or tok.endswith(".yaml") and not (REPO / tok).exists() and "/" not in tok:
        return str(config)
    if tok in ("eager.log", "LOG", "run.log", "failed_run.log", "$failed"):
        return str(EAGER_LOG)
    if tok in ("graph.log", "GRAPH_LOG"):
        return str(GRAPH_LOG)
    if tok in ("ANSWERS.jsonl",):
        return str(ANSWERS)
    if tok in ("W",):
        return "dense"
    if tok in ("S",):
        return "tiny"
    if tok.strip('"').startswith("$TMP/") and tok.endswith(".yaml") or tok.endswith('.yaml"'):
        return str(config)  # the demo's earlier step wrote it from the same config
    if tok.startswith("$TMP") or tok.startswith("\"$TMP") or tok in ("out/",):
        return str(tmp / Path(tok.strip('"').replace("$TMP/", "")).name)
    if tok.startswith(("~/.claude/skills/", ".agents/skills/")):  # an installed copy: a link named like the skill
        link = tmp / "skills" / Path(tok).name
        if not link.exists():
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(REPO, target_is_directory=True)
        return str(link)
    if tok.startswith("I") and tok == "I":
        return "transformer_engine"
    return tok


def _subcommands(text: str) -> list[str]:
    word = shlex.split(re.sub(r"\s#\s.*$", "", text))[1]
    return word.split("|")


@pytest.mark.parametrize("shown", SHOWN, ids=lambda s: s.id)
def test_shown_command_parses(shown, tmp_path):
    subs = _subcommands(shown.text)
    for sub in subs:
        assert sub in COMMANDS, f"{shown.where}: `skill-tools {sub}` is not a command (have: {', '.join(COMMANDS)})"
    if len(subs) > 1 or len(shlex.split(re.sub(r"\s#\s.*$", "", shown.text))) == 2:
        return  # a list of helpers, or the bare command named in prose: the names exist
    argv = _argv(shown.text, tmp_path)
    parser = build_parser({argv[0]: COMMANDS[argv[0]]})
    try:
        parser.parse_args(argv)
    except SystemExit as exc:
        pytest.fail(f"{shown.where}: the CLI refuses `{shown.text}` (exit {exc.code})")


def _runnable(shown: Shown) -> bool:
    subs = _subcommands(shown.text)
    if len(subs) != 1 or subs[0] in GPU_ONLY and "--results" not in shown.text:
        return False
    toks = shlex.split(re.sub(r"\s#\s.*$", "", shown.text))
    if subs[0] == "evals" and (len(toks) < 3 or toks[2] != "score"):
        return False  # evals run drives an agent
    return len(toks) > 2 or subs[0] in ("lint",)


@pytest.mark.parametrize("shown", [s for s in SHOWN if _runnable(s)], ids=lambda s: s.id)
def test_shown_command_runs(shown, tmp_path):
    argv = _argv(shown.text, tmp_path)
    proc = subprocess.run([sys.executable, "-m", "skill_tools", *argv], cwd=REPO, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode in (0, 1), f"{shown.where}: `{' '.join(argv)}` exited {proc.returncode}\n{proc.stderr[-2000:]}"
    if "--json" in argv:
        data = json.loads(proc.stdout)
        assert isinstance(data, dict), shown.where
        missing = JSON_KEYS.get(argv[0], set()) - set(data)
        assert not missing, f"{shown.where}: --json output lacks {sorted(missing)}"
    else:
        assert proc.stdout.strip(), f"{shown.where}: no output"


def test_the_docs_show_commands():
    """The extractor finds the commands (a doc-test that finds nothing checks nothing)."""
    assert len(SHOWN) > 40
    assert sum(1 for s in SHOWN if _runnable(s)) > 15
