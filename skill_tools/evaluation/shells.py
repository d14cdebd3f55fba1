"""Environment variables set by shells other than POSIX sh and by the files clusters and containers
read, taken as the ``export VAR=value`` they mean: fish configs (``set -gx VAR value``), csh scripts
and Tcl modulefiles (``setenv VAR value``), Lmod modulefiles (``setenv("VAR", "value")``,
``pushenv``), PowerShell transcripts (``$env:VAR = "value"``), a Dockerfile's ``ENV VAR value``,
systemd units (``Environment=VAR=value``) and SLURM's ``--export=ALL,VAR=value`` (``#SBATCH`` lines,
``srun``/``sbatch`` arguments). The required companions they export (``NCCL_GRAPH_REGISTER=0``)
count like any other.
"""

from __future__ import annotations

import re
import shlex

#: An environment variable exported by another shell: fish ``set -gx VAR value``, csh ``setenv VAR
#: value``, PowerShell ``$env:VAR = "value"``; read as the POSIX ``export VAR=value`` it means.
_OTHER_SHELL_ENV = re.compile(r"^(?:set\s+(?:-[A-Za-z]*x[A-Za-z]*|--export)(?:\s+-[A-Za-z]+|\s+--[a-z]+)*\s+"
                              r"|setenv\s+|\$env:)([A-Z][A-Z0-9_]{2,})(?:\s*=\s*|\s+)(\S.*?)\s*(?:\s#.*)?$")


_VAR = r"([A-Z][A-Z0-9_]{2,})"
#: Lmod (Lua): ``setenv("VAR", "value")`` / ``pushenv(...)``; a Dockerfile's one-pair ``ENV VAR value``.
_LUA_ENV = re.compile(r"^(?:setenv|pushenv)\s*\(\s*[\"']" + _VAR + r"[\"']\s*,\s*(?:\"([^\"\n]*)\"|'([^'\n]*)'|"
                      r"\[\[([^\]\n]*)\]\]|([\w.:/+-]+))\s*(?:,[^)]*)?\)\s*;?\s*(?:--.*)?$")
_DOCKER_ENV = re.compile(r"^ENV\s+" + _VAR + r"\s+([^=\s][^=]*)$")
#: systemd ``Environment=VAR=value "VAR2=value 2"``.
_SYSTEMD_ENV = re.compile(r"^Environment\s*=\s*(.+)$")
#: SLURM's ``--export=ALL,VAR=value,…`` (bare names pass the caller's value on: nothing is set).
_SLURM_EXPORT = re.compile(r"--export=(\S+)")
_PAIR = re.compile(_VAR + r"=(.*)")


def _slurm_pairs(spec: str) -> list[str]:
    return [p for p in spec.strip("'\"").split(",") if _PAIR.fullmatch(p)]


def posix_env(line: str) -> str:
    m = _LUA_ENV.match(line)
    if m:
        value = next(g for g in m.groups()[1:] if g is not None)
        return f"export {m.group(1)}={shlex.quote(value)}"
    m = _DOCKER_ENV.match(line)
    if m:
        return f"export {m.group(1)}={shlex.quote(m.group(2).strip())}"
    m = _SYSTEMD_ENV.match(line)
    if m:
        try:
            pairs = [w for w in shlex.split(m.group(1), comments=True) if _PAIR.fullmatch(w)]
        except ValueError:
            return line
        return "export " + " ".join(f"{p.split('=', 1)[0]}={shlex.quote(p.split('=', 1)[1])}" for p in pairs) \
            if pairs else line
    if "--export=" in line and (line.startswith("#SBATCH") or re.match(r"^(?:\S+/)?(?:srun|sbatch|salloc)\s", line)):
        pairs = [p for m in _SLURM_EXPORT.finditer(line) for p in _slurm_pairs(m.group(1))]
        if line.startswith("#SBATCH"):
            return "export " + " ".join(pairs) if pairs else line
        return _SLURM_EXPORT.sub(lambda m: " ".join(_slurm_pairs(m.group(1))), line)
    m = _OTHER_SHELL_ENV.match(line)
    if not m or (line.startswith("$env:") and "=" not in line):
        return line
    try:
        words = shlex.split(m.group(2), comments=True)
    except ValueError:
        return line
    return f"export {m.group(1)}={shlex.quote(' '.join(words))}" if words else line


#: Words that only prose has between a command's tokens ("eager warmup iterations before capture").
_FUNCTION_WORDS = frozenset("the a an is are of for to it and or with before after on in no not be this that "
                            "must should can so then when which".split())
#: A ``case`` arm's pattern and terminator around its command.
_CASE_ARM = re.compile(r"^\s*\(?[\w*.|\"'-]+\)\s+(?=\S)|\s*;;\s*$")
_ONE_LINE_ARRAY = re.compile(r"^\s*(?:(?:local|declare -a|readonly)\s+)?[A-Za-z_]\w*\+?=\((.*)\)\s*$")
#: A wide gap in a command line: what follows it may be a note aligned beside the flag.
_GAP = re.compile(r"\S\s{3,}(?=\S)")


def without_prose(line: str) -> str:
    """The command part of one line of a shell-like block: a line of prose written in the block ("No
    --cuda-graph-modules: it must stay empty", a commit message's "Drop --step-batch-size-schedule,
    keep --global-batch-size 1536.") has none; a note aligned beside a flag after a wide gap
    ("--cuda-graph-warmup-steps 3      eager warmup iterations before capture", "--x 0      (Bridge:
    model.x=0)") is not part of it."""
    line = _CASE_ARM.sub("", line)  # 2) GRAPH_ARGS=(--cuda-graph-impl local) ;;  →  the arm's command
    array = _ONE_LINE_ARRAY.match(line)  # ARGS=(--cuda-graph-impl local): the words it holds
    line = array.group(1) if array else line
    words = line.split()
    if words and re.fullmatch(r"[A-Z][a-z]+,?", words[0]) and _prose(words[1:]):
        return ""
    for gap in _GAP.finditer(line):
        rest = line[gap.end():]
        if line.lstrip().startswith("-") and (_prose(rest.split()) or re.fullmatch(r"\((?!\()[^()]*\)\s*", rest)):
            return line[:gap.start() + 1]  # (a parenthesised note: "(Bridge: model.cuda_graph_warmup_steps=0)")
    return line


def _prose(words: list[str]) -> bool:
    """Words that read as a sentence: at least three plain words, one of them a function word."""
    plain = [w.strip(".,:;()").lower() for w in words if re.fullmatch(r"[A-Za-z]{2,}[.,:;)]?|\(?[A-Za-z]{2,}", w)]
    return len(plain) >= 3 and any(w in _FUNCTION_WORDS for w in plain)


#: Programs whose options are their own, never a training run's: their command lines hold no config.
NOT_LAUNCHERS = frozenset({"skill-tools", "git", "cat", "grep", "rg", "ls", "pip", "pip3", "nvidia-smi", "head",
                           "tail", "less", "jq", "watch", "curl", "wget", "kubectl", "squeue", "sacct", "scancel",
                           "sinfo", "pytest", "which", "du", "df", "ps", "diff", "wc", "find", "echo", "printf"})
_WRAPPERS = frozenset({"sudo", "time", "exec", "nohup", "env", "command"})
#: Words of the shell's grammar before a command (``if ! out=$(skill-tools validate …); then``,
#: ``done < <(git diff …)``): the command is the word after them.
_GRAMMAR = frozenset({"if", "then", "elif", "else", "while", "until", "do", "done", "fi", "!", "{", "}", "<", "&&", "||"})
#: ``NAME=value`` (``export NAME=value``): an environment assignment before or as a command.
ENV_TOKEN = re.compile(r"^(?:export\s+)?([A-Z][A-Z0-9_]{2,})=(.*)$")
#: Where a command starts inside a word: ``$(cmd``, ``<(cmd``, ``(cmd``, a backquote, or ``var=$(cmd``.
_SUBSTITUTION = re.compile(r"^(?:[A-Za-z_]\w*=)?(?:\$\(|<\(|\(|`)+")


def program(tokens: list[str]) -> str:
    """The program a command line starts: after environment assignments, wrappers like ``time``,
    the shell's grammar words, and into a command substitution (``out=$(skill-tools validate …``)."""
    for tok in tokens:
        if tok in _GRAMMAR:
            continue
        inner = _SUBSTITUTION.sub("", tok)
        if inner != tok:
            if not inner:
                continue
            tok = inner
        elif ENV_TOKEN.match(tok):
            continue
        name = tok.rsplit("/", 1)[-1]
        if name in _WRAPPERS:
            continue
        return name
    return ""
