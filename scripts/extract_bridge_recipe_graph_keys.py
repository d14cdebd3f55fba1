"""Extract the graph-relevant keys NVIDIA's Bridge recipes set, at a tag, as facts for the snippet tests.

For each (family, recipe function) below, reads the function at the tag from a bare git dir and
records every ``cfg.<section>.<key> = <literal>`` assignment whose key matters to CUDA graphs
(graph impl/scope/modules/warmup, RNG tracker, recompute, MoE dispatch/capacity, offloading, NaN
checks), with its line. Used where that Bridge release cannot be imported (Bridge v0.3.x pins
megatron-core < 0.17): the 0.16-era snippet tests paste snippets over these values. Only the
values are committed, never upstream code.

    python scripts/extract_bridge_recipe_graph_keys.py --git-dir BRIDGE.git --tag v0.3.1 \
        --out tests/fixtures/stock/bridge_v0.3.1_recipe_keys.json
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess

RECIPES = {
    "llama3-8b": ("src/megatron/bridge/recipes/llama/llama3.py", "llama3_8b_pretrain_config"),
    "qwen3-30b-a3b": ("src/megatron/bridge/recipes/qwen/qwen3_moe.py", "qwen3_30b_a3b_pretrain_config"),
    "deepseek-v3": ("src/megatron/bridge/recipes/deepseek/deepseek_v3.py", "deepseek_v3_pretrain_config"),
    "gpt-oss-20b": ("src/megatron/bridge/recipes/gpt_oss/gpt_oss.py", "gpt_oss_20b_pretrain_config"),
    "nemotronh-8b": ("src/megatron/bridge/recipes/nemotronh/nemotronh.py", "nemotronh_8b_pretrain_config"),
    "qwen25-vl-7b": ("src/megatron/bridge/recipes/qwen_vl/qwen25_vl.py", "qwen25_vl_7b_finetune_config"),
}
RELEVANT = re.compile(r"^(model\.(cuda_graph_\w+|use_te_rng_tracker|recompute_\w+|moe_\w+|num_moe_experts|"
                      r"cpu_offloading\w*|external_cuda_graph|enable_cuda_graph)|rng\.te_rng_tracker|"
                      r"rerun_state_machine\.check_for_nan_in_loss|ddp\.check_for_nan_in_grad)$")


def assignments(source: str, func: str) -> dict[str, dict]:
    tree = ast.parse(source)
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    fn = funcs[func]
    # The recipe's own lines, after those of the module helpers it calls (``_qwen25_vl_common``...).
    helpers = [funcs[c.func.id] for c in ast.walk(fn)
               if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id in funcs]
    out: dict[str, dict] = {}
    for node in [n for h in helpers for n in ast.walk(h)] + list(ast.walk(fn)):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        parts, target = [], node.targets[0]
        while isinstance(target, ast.Attribute):
            parts.append(target.attr)
            target = target.value
        if not (isinstance(target, ast.Name) and target.id == "cfg"):
            continue
        key = ".".join(reversed(parts))
        if not RELEVANT.match(key):
            continue
        try:
            value = ast.literal_eval(node.value)
        except ValueError:
            continue
        out[key] = {"value": value, "line": node.lineno}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--git-dir", required=True)
    ap.add_argument("--tag", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    facts = {}
    for family, (path, func) in RECIPES.items():
        source = subprocess.run(["git", f"--git-dir={args.git_dir}", "show", f"{args.tag}:{path}"],
                                check=True, capture_output=True, text=True).stdout
        facts[family] = {"file": path, "function": func, "keys": assignments(source, func)}
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"source": "NVIDIA-NeMo/Megatron-Bridge", "tag": args.tag, "recipes": facts}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
