"""Propose a positive and a negative example for catalog rules that have none, from config texts the
project already holds (string literals in tests/, examples/, the upstream corpus).

For each rule: the shortest text it fires on (positive); the positive with the rule's own fix
applied (negative), checked to be quiet, or else the closest text of the same format it is quiet on.
Prints YAML to paste under each rule's ``examples:`` (``--write`` inserts them into catalog.yaml).

    python scripts/mine_rule_examples.py [--write]
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import re
import warnings
from pathlib import Path

import yaml

from skill_tools.config.era import era_for
from skill_tools.config.readers import read_text
from skill_tools.errors import InputError
from skill_tools.rules.catalog import CATALOG_PATH, load
from skill_tools.rules.engine import check

REPO = Path(__file__).resolve().parent.parent
VERSIONS = ("0.19.2", "0.16.1")


def texts() -> list[tuple[str, str | None]]:
    out: list[tuple[str, str | None]] = []
    for path in sorted((REPO / "tests").glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and 24 < len(node.value) < 600:
                if re.search(r"cuda.graph|graph|offload|recompute|packing|packed|nan|rng", node.value):
                    out.append((node.value if node.value.endswith("\n") else node.value + "\n", None))
    for path in sorted((REPO / "examples").iterdir()):
        if path.is_file() and path.stat().st_size < 1200:
            out.append((path.read_text(encoding="utf-8"), None))
    for line in (REPO / "benchmarks" / "upstream_corpus" / "cases.jsonl").read_text().splitlines():
        c = json.loads(line)
        if len(c["text"]) < 700:
            out.append((c["text"] + "\n", c["format"]))
    return out


def fired(text: str, fmt: str | None, version: str) -> dict[str, object] | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cfg = read_text(text, fmt=fmt)
            return {f.rule: f for f in check(cfg, era_for(version))}
    except (InputError, Exception):  # noqa: BLE001 - a text that is not a config is skipped
        return None


def with_fix(text: str, fmt: str | None, fix: dict) -> str | None:
    cfg = read_text(text, fmt=fmt)
    if cfg.fmt not in ("yaml", "json") or any(k.startswith("env.") for k in fix):
        return None
    for key, value in fix.items():
        if value == "<remove>" or value is None:
            cfg.unset(key)
        else:
            cfg.set(key, value)
    tree: dict = {}
    for key, value in cfg.values.items():
        section, _, rest = key.partition(".")
        node = tree.setdefault(section, {})
        node[rest] = value
    return yaml.safe_dump(tree, sort_keys=True)


def mine() -> dict[str, dict]:
    pool = texts()
    results: dict[str, dict] = {}
    runs = [(t, f, v, fired(t, f, v)) for t, f in pool for v in VERSIONS]
    runs = [r for r in runs if r[3] is not None]
    for rule in load().rules:
        if rule.examples.get("positive") and rule.examples.get("negative"):
            continue
        hits = sorted((r for r in runs if rule.id in r[3]), key=lambda r: len(r[0]))
        if not hits:
            continue
        text, fmt, version, found = hits[0]
        neg = with_fix(text, fmt, found[rule.id].fix)
        if neg is None or rule.id in (fired(neg, fmt, version) or {rule.id: 1}):
            quiet = [r for r in runs if rule.id not in r[3] and r[2] == version and r[1] == fmt
                     and (read_text(r[0], fmt=r[1]).fmt == read_text(text, fmt=fmt).fmt)]
            neg = min(quiet, key=lambda r: 1 - difflib.SequenceMatcher(None, r[0], text).ratio())[0] if quiet else None
        entry = {"mcore": version, "config": text}
        if fmt:
            entry["format"] = fmt
        results[rule.id] = {"positive": [entry]}
        if neg is not None:
            results[rule.id]["negative"] = [{**entry, "config": neg}]
    return results


class _Literal(yaml.SafeDumper):
    """Multi-line configs as ``|`` blocks, so the catalog reads like the configs it shows."""


_Literal.add_representer(str, lambda d, s: d.represent_scalar("tag:yaml.org,2002:str", s, style="|" if "\n" in s else None))


def write(found: dict[str, dict]) -> None:
    text = CATALOG_PATH.read_text(encoding="utf-8")
    for rule_id, ex in found.items():
        if "negative" not in ex:
            continue
        block = yaml.dump({"examples": ex}, Dumper=_Literal, sort_keys=False, width=200)
        block = "".join("    " + ln + "\n" for ln in block.splitlines())
        m = re.search(rf"^  - id: {re.escape(rule_id)}\n(?:    .*\n|      .*\n|\s*\n)*?(?=^  - id: |\Z|^  # )", text, re.M)
        if m is None:
            continue
        body = m.group(0).rstrip("\n") + "\n"
        text = text.replace(m.group(0), body + block + "\n", 1)
    CATALOG_PATH.write_text(text, encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    found = mine()
    if args.write:
        write(found)
    missing = [r.id for r in load().rules if r.id not in found and not r.examples]
    print(json.dumps({"proposed": len(found), "with_negative": sum("negative" in v for v in found.values()),
                      "no_positive_found": missing}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
