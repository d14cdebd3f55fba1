"""Extract Megatron-LM's command-line flag table at a tag, as data.

Megatron-LM builds its parser in ``megatron/training/arguments.py`` (``add_megatron_arguments``);
part of it comes from dataclass fields through ``ArgumentGroupFactory``, so the flag set is read
from the parser the tag's own code builds, not from its text. The script exports the tag's
``megatron/`` tree from a Megatron-LM git directory, imports it (missing optional third-party
modules are replaced by empty stand-ins: only the parser is built, nothing runs), calls
``add_megatron_arguments`` and writes every option: its strings, dest, action kind, nargs,
choices and value type.

    python scripts/extract_megatron_lm_flags.py --git-dir PATH/TO/Megatron-LM.git core_v0.16.0 \
        --out skill_tools/data/megatron_lm_flags/core_v0.16.0.json

Needs torch importable (the tag's modules import it at module level).
"""

from __future__ import annotations

import argparse
import importlib.abc
import importlib.machinery
import json
import subprocess
import sys
import tempfile
import types
from pathlib import Path


class _Stub(types.ModuleType):
    """A module whose every attribute is another stand-in (class-like, callable)."""

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return _StubClass


class _StubMeta(type):
    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _StubClass

    def __call__(cls, *a, **k):
        return _StubClass


class _StubClass(metaclass=_StubMeta):
    def __init_subclass__(cls, **kwargs):  # pydantic-style class keywords (extra='allow')
        super().__init_subclass__()


#: Pure-Python helpers that tokenizer/data modules import at module level and that the parser
#: never uses. Accelerator libraries (transformer_engine, apex, flash_attn, ...) are never stubbed:
#: megatron guards those with ``try/except ImportError`` and a stand-in would switch code paths on.
STUBBABLE = frozenset({"six", "regex", "nltk", "sentencepiece", "tiktoken", "transformers", "datasets",
                       "wandb", "tensorboard", "flask", "flask_restful", "einops", "yaml", "onelogger",
                       "one_logger", "multistorageclient", "nvidia_resiliency_ext", "psutil", "tqdm", "pydantic"})


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serve missing optional third-party modules (six, regex, nltk, ...) as stand-ins."""

    def __init__(self, tree: Path) -> None:
        self.tree = str(tree.resolve())
        self.stubbed: set[str] = set()

    def _from_tree(self) -> bool:
        """Only imports written in the tag's own files are served (a library's own
        ``try: import x / except ImportError`` fallbacks keep working)."""
        frame = sys._getframe(2)
        while frame is not None and frame.f_code.co_filename.startswith("<frozen"):
            frame = frame.f_back
        return frame is not None and frame.f_code.co_filename.startswith(self.tree)

    def find_spec(self, name, path, target=None):
        root = name.split(".")[0]
        if root not in STUBBABLE or not self._from_tree():
            return None
        for finder in sys.meta_path:
            if finder is self:
                continue
            try:
                spec = finder.find_spec(name, path, target)
            except Exception:  # noqa: BLE001
                spec = None
            if spec is not None:
                return None
        self.stubbed.add(name)
        return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec):
        mod = _Stub(spec.name)
        mod.__path__ = []
        return mod

    def exec_module(self, module):
        return None


def _kind(action: argparse.Action) -> str:
    return {
        argparse._StoreTrueAction: "store_true",
        argparse._StoreFalseAction: "store_false",
        argparse._StoreConstAction: "store_const",
        argparse._AppendAction: "append",
        argparse._CountAction: "count",
        argparse._HelpAction: "help",
    }.get(type(action), "store" if type(action) is argparse._StoreAction else type(action).__name__)


def _type_name(t) -> str | None:
    if t is None:
        return None
    if t in (int, float, str):
        return t.__name__
    return getattr(t, "__name__", type(t).__name__)


def _plain(v):
    import enum

    if isinstance(v, enum.Enum):
        # enum_type_handler (argument_utils.py) takes the member *name* on the command line
        # (``--attention-backend auto``, ``--exit-signal SIGTERM``); argparse then checks the member
        # against the choices, so the names are what the command line can say
        return v.name
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return str(v)


BOGUS = "__not_a_value__"


def _probe(action: argparse.Action, candidates: list[str]) -> list[str] | None:
    """Values a custom ``type=`` function (``CudaGraphScope[x]``, ``_parse_cuda_graph_modules_arg``)
    accepts among ``candidates``; None when it accepts anything (no enum behind it)."""
    t = action.type
    if t is None or t in (int, float, str) or action.choices is not None:
        return None
    try:
        t(BOGUS)
        return None
    except Exception:  # noqa: BLE001 - KeyError from Enum[...] as well as ValueError
        pass
    ok = []
    for c in candidates:
        try:
            t(c)
            ok.append(c)
        except Exception:  # noqa: BLE001
            continue
    return ok or None


def table(parser: argparse.ArgumentParser, candidates: list[str] = ()) -> list[dict]:
    rows = []
    for action in parser._actions:
        if not action.option_strings:
            continue
        nargs = action.nargs
        rows.append({
            "options": list(action.option_strings),
            "dest": action.dest,
            "action": _kind(action),
            "nargs": nargs if nargs is None or isinstance(nargs, int) else str(nargs),
            "choices": [_plain(c) for c in action.choices] if action.choices is not None else None,
            "type": _type_name(action.type),
            "type_accepts": _probe(action, list(candidates)),
        })
    return rows


def build(tree: Path) -> tuple[list[dict], list[str]]:
    import torch  # noqa: F401 - imported before any stand-in exists

    sys.path.insert(0, str(tree))
    finder = _StubFinder(tree)
    sys.meta_path.append(finder)
    import warnings

    warnings.simplefilter("ignore")
    from megatron.training import arguments  # the tag's own module

    assert Path(arguments.__file__).resolve().is_relative_to(tree.resolve()), arguments.__file__
    parser = arguments.add_megatron_arguments(argparse.ArgumentParser(allow_abbrev=False))
    return table(parser, enum_names()), sorted(finder.stubbed)


def enum_names() -> list[str]:
    """Member names of the tag's transformer enums: the candidates a custom type is probed with."""
    import enum

    from megatron.core.transformer import enums

    names = {"full", "full_iteration", "full_iteration_inference"}
    for obj in vars(enums).values():
        if isinstance(obj, type) and issubclass(obj, enum.Enum) and obj.__module__ == enums.__name__:
            names.update(obj.__members__)
    return sorted(names)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tag")
    ap.add_argument("--git-dir", required=True, help="a Megatron-LM clone's git directory")
    ap.add_argument("--out", required=True)
    ap.add_argument("--tree", help="(internal) an exported tree to import")
    args = ap.parse_args()
    if args.tree is None:
        commit = subprocess.run(["git", f"--git-dir={args.git_dir}", "rev-parse", f"{args.tag}^{{commit}}"],
                                check=True, capture_output=True, text=True).stdout.strip()
        with tempfile.TemporaryDirectory() as tmp:
            archive = subprocess.run(["git", f"--git-dir={args.git_dir}", "archive", args.tag, "megatron"],
                                     check=True, capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
            # a fresh interpreter, so no other megatron is already imported
            subprocess.run([sys.executable, __file__, args.tag, "--git-dir", args.git_dir, "--out", args.out,
                            "--tree", tmp + "#" + commit], check=True)
        return 0
    tree, _, commit = args.tree.partition("#")
    rows, stubbed = build(Path(tree))
    data = {
        "source": {"repo": "NVIDIA/Megatron-LM", "file": "megatron/training/arguments.py", "tag": args.tag,
                   "commit": commit, "built_by": "add_megatron_arguments(argparse.ArgumentParser(allow_abbrev=False))",
                   "stubbed_modules": stubbed},
        "flags": rows,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(data, indent=None, separators=(",", ":")).replace('},{', '},\n{') + "\n")
    print(f"{args.tag}: {len(rows)} options -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
