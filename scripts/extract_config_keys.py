"""Extract the field names of every ConfigContainer section, as data, for typo checks.

Bridge's ``ConfigContainer`` (``src/megatron/bridge/training/config.py``) annotates each section
with its config class; those classes extend Megatron-LM's (``TransformerConfig``,
``DistributedDataParallelConfig``, ``OptimizerConfig``, ``megatron/training/config`` ...). The
script reads the sources with :mod:`ast` (nothing is imported), collects the annotated fields of
every class and follows base classes by name across both repositories, and writes, per section,
the union of the fields of the classes its annotation names. The ``model`` section also takes
every model-provider class under ``src/megatron/bridge/models/`` (recipes use subclasses).

    python scripts/extract_config_keys.py --bridge-git-dir B.git --bridge-commit 067f987 \
        --mlm-git-dir M.git --mlm-tag core_v0.16.1 --mlm-tag core_v0.19.0 --out skill_tools/data/config_keys.json
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
from collections import defaultdict
from pathlib import Path


def _files(git_dir: str, rev: str, prefix: str) -> dict[str, str]:
    names = subprocess.run(["git", f"--git-dir={git_dir}", "ls-tree", "-r", "--name-only", rev, prefix],
                           check=True, capture_output=True, text=True).stdout.split()
    out = {}
    for name in names:
        if name.endswith(".py"):
            out[name] = subprocess.run(["git", f"--git-dir={git_dir}", "show", f"{rev}:{name}"],
                                       check=True, capture_output=True, text=True).stdout
    return out


class Index:
    def __init__(self) -> None:
        self.fields: dict[str, set[str]] = defaultdict(set)
        self.bases: dict[str, set[str]] = defaultdict(set)
        self.aliases: dict[str, str] = {}
        self.files: dict[str, str] = {}
        self.container: dict[str, set[str]] = {}

    def add(self, path: str, text: str) -> None:
        try:
            tree = ast.parse(text)
        except SyntaxError:
            return
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                for a in node.names:
                    if a.asname:
                        self.aliases[a.asname] = a.name
            elif isinstance(node, ast.ClassDef):
                self.files.setdefault(node.name, path)
                for b in node.bases:
                    name = b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", None)
                    if name:
                        self.bases[node.name].add(name)
                for stmt in node.body:
                    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                        if not stmt.target.id.startswith("_"):
                            self.fields[node.name].add(stmt.target.id)
                        if node.name == "ConfigContainer":
                            self.container[stmt.target.id] = _names(stmt.annotation)

    def resolve(self, name: str, seen: set[str] | None = None) -> set[str]:
        seen = seen if seen is not None else set()
        name = self.aliases.get(name, name)
        if name in seen:
            return set()
        seen.add(name)
        out = set(self.fields.get(name, ()))
        for base in self.bases.get(name, ()):
            out |= self.resolve(base, seen)
        return out


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bridge-git-dir", required=True)
    ap.add_argument("--bridge-commit", required=True)
    ap.add_argument("--mlm-git-dir", required=True)
    ap.add_argument("--mlm-tag", action="append", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    commit = subprocess.run(["git", f"--git-dir={args.bridge_git_dir}", "rev-parse", f"{args.bridge_commit}^{{commit}}"],
                            check=True, capture_output=True, text=True).stdout.strip()
    sections: dict[str, set[str]] = defaultdict(set)
    for tag in args.mlm_tag:
        index = Index()
        for path, text in _files(args.mlm_git_dir, tag, "megatron").items():
            index.add(path, text)
        bridge = _files(args.bridge_git_dir, commit, "src/megatron/bridge")
        for path, text in bridge.items():
            index.add(path, text)
        for section, classes in index.container.items():
            for cls in classes:
                sections[section] |= index.resolve(cls)
        for cls, path in index.files.items():
            if path.startswith("src/megatron/bridge/models/") and (cls.endswith(("Provider", "Config"))):
                sections["model"] |= index.resolve(cls)
        for cls in ("TransformerConfig", "MLATransformerConfig", "ModelParallelConfig"):
            sections["model"] |= index.resolve(cls)
    data = {
        "source": {"bridge": {"repo": "NVIDIA-NeMo/Megatron-Bridge", "commit": commit,
                              "file": "src/megatron/bridge/training/config.py (ConfigContainer) and src/megatron/bridge/**"},
                   "megatron_lm": {"repo": "NVIDIA/Megatron-LM", "tags": args.mlm_tag, "files": "megatron/**"},
                   "method": "ast: annotated class fields, base classes followed by name"},
        "sections": {k: sorted(v) for k, v in sorted(sections.items()) if v},
    }
    Path(args.out).write_text(json.dumps(data, indent=0) + "\n")
    print({k: len(v) for k, v in data["sections"].items()})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
