"""Hostile inputs for every command, and the contract each call must keep.

The kinds that crashed, hung or destroyed a file before (issue: "Nothing a user gives the tools
can destroy their file, crash them or reach a shell"): YAML explicit tags with values they cannot
build, Python literals no config holds, numbers at the float limits, long and odd paths, text in
other encodings, special files (devices, FIFOs, folders, dangling links), Hydra overrides across
its grammar. :func:`case_argv` turns one generated case into a command line over a scratch
folder; :func:`check_contract` runs it and asserts what every call must keep: exit 0, 1 or 2 (2
with one line), bounded time and memory (fuzz_inputs.run_cli), the input unchanged unless
``--in-place`` was asked, and no file created but the output named.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from pathlib import Path

from hypothesis import strategies as st

import fuzz_inputs as F

YAML_TAGS = ["int", "float", "bool", "null", "timestamp", "binary", "str", "seq", "map", "set", "omap", "pairs",
             "merge", "value", "python/name:os.system", "python/object/apply:os.system", "python/tuple", "foo"]
TAG_VALUES = ["''", "moe", "[1]", "{a: 1}", "x", "2020-13-45", "0x", "1e999", "-.inf", ".nan", "0b2", "0o9", "1_0",
              "'\\ud800'", '"\\ud800"', "!!int", "&a 1", "*a", "~", "null", "yes", "2001-12-14t21:59:43.10-05:00",
              "=", "<<", "aGVsbG8=", "[[1, 2]]"]
FLOAT_LIMITS = ["1e308", "-1e308", "1.7976931348623157e308", "1.8e308", "5e-324", "-5e-324", "2.2250738585072014e-308",
                "inf", "-inf", "nan", "1e-400", "0", "-0.0", "9" * 400, "1e3081", "0.0000000000000000000001"]
PY_LITERALS = ["{[1]: 2}", "{(1, [2]): 3}", "{{1}: 2}", "{1: {[1]: 2}}", "[1e999, -1e999]", "10**10**10", "'\\ud800'",
               "b'x'", "{1, 2}", "1j", "...", "lambda: 0", "f'{x}'", "not not not 1", "-(-(-1))", "[*x]", "{**x}",
               "(yield)", "await x", "x if y else z", "[i for i in range(9**9)]", "0x" + "f" * 50, "1_000",
               "CudaGraphScope.attn", "os.system('true')", "__import__('os')", "{'a': 1, 'a': 2}", "()",
               "float('nan')", "1e308 * 10", "'a' * 10**9", "None", "True", "[None] * 3"]
KEYS = ["model.cuda_graph_impl", "model.cuda_graph_scope", "model.cuda_graph_modules", "model.num_layers",
        "model.cuda_graph_warmup_steps", "rng.te_rng_tracker", "model.recompute_granularity", "train.micro_batch_size"]
ENCODINGS = ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-8-sig", "latin-1", "cp1252", "utf-8"]
SPECIAL = ["/dev/zero", "/dev/null", "/dev/urandom", "fifo", "folder", "dangling", "loop", "empty", "long",
           "very-long", "newline", "dash-flag", "override", "nul-name", "trailing-slash", "unicode", "glob"]


@st.composite
def yaml_tag_texts(draw) -> tuple[str, str]:
    key = draw(st.sampled_from(KEYS))
    section, field = key.split(".", 1)
    tag = draw(st.sampled_from(YAML_TAGS))
    value = draw(st.sampled_from(TAG_VALUES))
    where = draw(st.sampled_from(["value", "key", "seq", "top"]))
    if where == "key":
        return f"{section}:\n  !!{tag} {field}: {value}\n", ".yaml"
    if where == "seq":
        return f"{section}:\n  {field}:\n    - !!{tag} {value}\n", ".yaml"
    if where == "top":
        return f"!!{tag} {value}\n", ".yaml"
    dup = draw(st.booleans())
    return f"{section}:\n  {field}: !!{tag} {value}\n" + (f"  {field}: 2\n" if dup else ""), ".yaml"


@st.composite
def python_literal_texts(draw) -> tuple[str, str]:
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        key = draw(st.sampled_from(KEYS))
        lit = draw(st.one_of(st.sampled_from(PY_LITERALS), st.sampled_from(FLOAT_LIMITS)))
        root = draw(st.sampled_from(["cfg", "config", "model_cfg", "provider", "self"]))
        target = f"{root}.{key}" if root in ("cfg", "config", "self") else f"{root}.{key.split('.', 1)[1]}"
        form = draw(st.sampled_from(["assign", "call", "annotated", "tuple", "chained", "indented"]))
        if form == "call":
            lines.append(f"p = GPTModelProvider({key.split('.', 1)[1]}={lit})")
        elif form == "annotated":
            lines.append(f"{target}: object = {lit}")
        elif form == "tuple":
            lines.append(f"{target}, cfg.model.num_layers = {lit}, 2")
        elif form == "chained":
            lines.append(f"{target} = cfg.model.hidden_size = {lit}")
        elif form == "indented":
            lines.append(f"def f(cfg):\n    {target} = {lit}")
        else:
            lines.append(f"{target} = {lit}")
    return "import os\n" + "\n".join(lines) + "\n", ".py"


@st.composite
def float_limit_texts(draw) -> tuple[str, str]:
    key = draw(st.sampled_from(KEYS))
    value = draw(st.sampled_from(FLOAT_LIMITS))
    kind = draw(st.sampled_from(["yaml", "json", "hydra", "megatron_lm"]))
    section, field = key.split(".", 1)
    if kind == "yaml":
        return f"{section}:\n  {field}: {value}\n", ".yaml"
    if kind == "json":
        return f'{{"{section}": {{"{field}": {value}}}}}', ".json"
    if kind == "hydra":
        return f"{key}={value}\n", ".txt"
    return f"torchrun pretrain_gpt.py --{field.replace('_', '-')} {value} --cuda-graph-impl local\n", ".sh"


@st.composite
def log_float_limits(draw) -> str:
    line = " iteration {i:>8}/      50 | elapsed time per iteration (ms): {ms} | lm loss: {loss} |"
    return "\n".join(line.format(i=i, ms=draw(st.sampled_from(FLOAT_LIMITS)), loss=draw(st.sampled_from(FLOAT_LIMITS)))
                     for i in range(1, draw(st.integers(2, 40)))) + "\n"


@st.composite
def hydra_override_texts(draw) -> tuple[str, str]:
    words = []
    for _ in range(draw(st.integers(1, 5))):
        prefix = draw(st.sampled_from(["", "", "+", "++", "~"]))
        key = draw(st.sampled_from(KEYS + ["model/llama", "model@pkg", "optimizer@_global_", "x", "A_B"]))
        value = draw(st.one_of(st.sampled_from(["[attn,mlp]", "'a\\'b'", '"a\\"b"', "a\\,b", "null", "NULL", "1_000",
                                                ".5", "inf", "{a: [1, 2]}", "choice(1,2)", "${a.b}", "", "'", "[",
                                                "[a,]", "a=b", "01", "'\\\\'"]),
                               st.text(max_size=10)))
        words.append(prefix + key + ("" if prefix == "~" and draw(st.booleans()) else "=" + value))
    quote = draw(st.sampled_from(["none", "single", "double"]))
    if quote == "single":
        words = ["'" + w.replace("'", "'\"'\"'") + "'" for w in words]
    elif quote == "double":
        words = ['"' + w.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$") + '"' for w in words]
    return "\n".join(words) + "\n", ".txt"


@st.composite
def encoded_files(draw) -> tuple[bytes, str]:
    text, suffix = draw(F.config_texts())
    encoding = draw(st.sampled_from(ENCODINGS))
    data = text.encode(encoding, errors="replace")
    cut = draw(st.sampled_from([None, None, 1, 3]))
    if cut:
        data = data[:-cut] if len(data) > cut else data
    if draw(st.booleans()):
        data = data.replace(b"\n", b"\r\n")
    return data, suffix


def special_path(kind: str, scratch: Path) -> str:
    """A path of the kind named (created under ``scratch``) that no command may choke on."""
    if kind.startswith("/dev/"):
        return kind
    path = scratch / f"special-{kind}"
    if kind == "fifo":
        if not path.exists():
            os.mkfifo(path)
    elif kind == "folder":
        path.mkdir(exist_ok=True)
    elif kind == "dangling":
        if not path.is_symlink():
            path.symlink_to(scratch / "no-such-target")
    elif kind == "loop":
        if not path.is_symlink():
            path.symlink_to(path.name)
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "long":
        return str(scratch / ("a" * 300 + ".yaml"))
    elif kind == "very-long":
        return str(scratch / "/".join(["b" * 200] * 30))
    elif kind == "newline":
        return "model.cuda_graph_impl=local\nmodel.num_layers=2"
    elif kind == "dash-flag":
        return "--cuda-graph-impl=local"
    elif kind == "override":
        return "model.cuda_graph_impl=transformer_engine"
    elif kind == "nul-name":
        return "bad\x00name.yaml"
    elif kind == "trailing-slash":
        return str(scratch) + "/"
    elif kind == "unicode":
        p = scratch / "конфиг ✓.yaml"
        p.write_text("model:\n  cuda_graph_impl: local\n", encoding="utf-8")
        return str(p)
    elif kind == "glob":
        return str(scratch / "*.yaml")
    return str(path)


#: Every command, as (name, argv builder): the builder gets the input path and the scratch folder.
def command_lines(path: str, scratch: Path) -> dict[str, list[str]]:
    out = str(scratch / "out" / "result.txt")
    return {
        "validate": ["validate", path, "--json"],
        "apply": ["apply", path, "--impl", "full_iteration", "--out", out],
        "apply-in-place": ["apply", path, "--impl", "transformer_engine", "--scope", "attn", "--in-place"],
        "apply-hydra": ["apply", path, "--impl", "local", "--scope", "full_iteration", "--format", "hydra", "--out", out],
        "recommend": ["recommend", path, "--json"],
        "logs": ["logs", path, "--json"],
        "precheck": ["precheck", "--results", path, "--json"],
        "bench": ["bench", "--rebuild", path],
        "evals": ["evals", "score", "--answers", path, "--evals", str(F.REPO / "evals" / "evals.json")],
    }


def _digest(path: Path) -> str | None:
    try:
        st_ = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st_.st_mode):
        return f"mode:{stat.S_IFMT(st_.st_mode)}"
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _tree(folder: Path) -> dict[str, str | None]:
    return {str(p.relative_to(folder)): _digest(p) for p in folder.rglob("*") if not p.is_dir() or p.is_symlink()} | \
        {str(p.relative_to(folder)) + "/": "dir" for p in folder.rglob("*") if p.is_dir() and not p.is_symlink()}


def check_contract(argv: list[str], scratch: Path) -> F.Outcome:
    """Run ``argv`` and assert the contract (raises fuzz_inputs.Crash on any breach)."""
    (scratch / "out").mkdir(exist_ok=True)
    before = _tree(scratch)
    outcome = F.run_cli(argv)
    after = _tree(scratch)
    allowed = {"out/result.txt"}
    if "--in-place" in argv:
        allowed.add(os.path.relpath(argv[1], scratch) if os.path.isabs(argv[1]) else argv[1])
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k) and k not in allowed
                     and not k.startswith("out/result.txt"))
    if changed:
        raise F.Crash(f"files changed or created outside the output: {changed[:5]}")
    stray = [ln for ln in outcome.stderr.splitlines() if re.search(r"\b\w+Warning: ", ln) and not ln.startswith("skill-tools ")]
    if stray:
        raise F.Crash("a Python warning reached stderr: " + stray[0][:200])
    if "--json" in argv and outcome.rc == 2:
        try:
            doc = json.loads(outcome.stdout)
        except ValueError:
            raise F.Crash("--json error output is not JSON: " + outcome.stdout[:200]) from None
        if doc.get("ok") is not False or "error" not in doc:
            raise F.Crash("--json error document without ok=false/error: " + outcome.stdout[:200])
    return outcome
