"""Extract the flag table of Megatron Bridge's perf harness (``scripts/performance/run_script.py``,
whose parser is ``scripts/performance/argument_parser.py`` ``parse_cli_args``) at a commit, as data.

The file is read from a Megatron-Bridge git directory and its own ``parse_cli_args()`` builds the
parser (``nemo_run.config.get_nemorun_home``, its one import outside the standard library, is given
a stand-in that returns a placeholder path: it only fills a help string). Every option is written
with its strings, dest, action kind, nargs, choices and value type; custom ``type=`` validators
(``is_cuda_graph_impl_valid``, ``is_cuda_graph_scope_valid``, ``bool_arg``) are probed with
candidate values, so the table records which values each accepts and whether it splits commas.

    python scripts/extract_run_script_flags.py --git-dir PATH/TO/Megatron-Bridge.git 067f987 \
        --out skill_tools/data/run_script_flags.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import types
from pathlib import Path

PARSER_FILE = "scripts/performance/argument_parser.py"
BOGUS = "__not_a_value__"
CANDIDATES = ["none", "local", "transformer_engine", "full_iteration", "full_iteration_inference", "attn", "mlp",
              "moe", "moe_router", "moe_preprocess", "mamba", "full", "true", "false", "1", "0", "yes", "no",
              "t", "f", "y", "n", "None", "deepep", "hybridep"]


def _kind(action: argparse.Action) -> str:
    return {
        argparse._StoreTrueAction: "store_true",
        argparse._StoreFalseAction: "store_false",
        argparse._StoreConstAction: "store_const",
        argparse._AppendAction: "append",
        argparse._HelpAction: "help",
    }.get(type(action), "store" if type(action) is argparse._StoreAction else type(action).__name__)


def _probe(t) -> dict | None:
    if t is None or t in (int, float, str):
        return None
    info: dict = {}
    try:
        t(BOGUS)
        info["accepts_any"] = True
    except Exception:  # noqa: BLE001
        info["accepts_any"] = False
        info["accepts"] = [c for c in CANDIDATES if _ok(t, c)]
    try:
        info["splits_commas"] = isinstance(t("attn,mlp"), list)
    except Exception:  # noqa: BLE001
        info["splits_commas"] = False
    return info


def _ok(t, value: str) -> bool:
    try:
        t(value)
        return True
    except Exception:  # noqa: BLE001
        return False


def type_domains(source: str) -> dict[str, dict]:
    """The value domain of each option whose ``type=`` is written inline (a lambda), read from the
    parser's source rather than probed: ``lambda x: None if x == "None" else int(x)`` takes any
    integer and the word None. Keyed by the option's first string."""
    import ast

    out: dict[str, dict] = {}
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "add_argument" and node.args):
            continue
        kw = {k.arg: k.value for k in node.keywords}
        lam = kw.get("type")
        if not isinstance(lam, ast.Lambda):
            continue
        casts = {n.func.id for n in ast.walk(lam.body) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        words = sorted({c.value for c in ast.walk(lam.body) if isinstance(c, ast.Constant) and isinstance(c.value, str)})
        kind = "int" if "int" in casts else "float" if "float" in casts else None
        if kind and isinstance(node.args[0], ast.Constant):
            out[node.args[0].value] = {"type_source": ast.unparse(lam), "value_domain": {"kind": kind, "also": words}}
    return out


def annotate(rows: list[dict], source: str) -> list[dict]:
    """Rows with the domains :func:`type_domains` reads replacing what a probe guessed."""
    domains = type_domains(source)
    for row in rows:
        found = next((domains[o] for o in row["options"] if o in domains), None)
        if found:
            row.update(found)
            row["type_probe"] = None
    return rows


def table(parser: argparse.ArgumentParser) -> list[dict]:
    rows = []
    for action in parser._actions:
        if not action.option_strings:
            continue
        t = action.type
        rows.append({
            "options": list(action.option_strings),
            "dest": action.dest,
            "action": _kind(action),
            "nargs": action.nargs if action.nargs is None or isinstance(action.nargs, int) else str(action.nargs),
            "choices": [c for c in action.choices] if action.choices is not None else None,
            "type": None if t is None else getattr(t, "__name__", type(t).__name__),
            "type_probe": _probe(t),
            "required": bool(action.required),
        })
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("commit")
    ap.add_argument("--git-dir", required=True, help="a Megatron-Bridge clone's git directory")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    git = ["git", f"--git-dir={args.git_dir}"]
    commit = subprocess.run(git + ["rev-parse", f"{args.commit}^{{commit}}"], check=True, capture_output=True,
                            text=True).stdout.strip()
    source = subprocess.run(git + ["show", f"{commit}:{PARSER_FILE}"], check=True, capture_output=True,
                            text=True).stdout
    nemo_run = types.ModuleType("nemo_run")
    nemo_run_config = types.ModuleType("nemo_run.config")
    nemo_run_config.get_nemorun_home = lambda: "<NEMORUN_HOME>"
    nemo_run.config = nemo_run_config
    sys.modules.update({"nemo_run": nemo_run, "nemo_run.config": nemo_run_config})
    module = types.ModuleType("argument_parser")
    module.__file__ = PARSER_FILE
    exec(compile(source, PARSER_FILE, "exec"), module.__dict__)  # Bridge's own file, from its git history
    rows = annotate(table(module.parse_cli_args()), source)
    data = {
        "source": {"repo": "NVIDIA-NeMo/Megatron-Bridge", "file": PARSER_FILE, "commit": commit,
                   "built_by": "parse_cli_args()"},
        "valid_cuda_graph_impls": list(module.VALID_CUDA_GRAPH_IMPLS),
        "valid_cuda_graph_scopes": list(module.VALID_CUDA_GRAPH_SCOPES),
        "flags": rows,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(data, separators=(",", ":")).replace('},{"options"', '},\n{"options"') + "\n")
    print(f"{commit[:9]}: {len(rows)} options -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
