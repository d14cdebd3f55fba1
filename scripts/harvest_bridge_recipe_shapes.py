#!/usr/bin/env python3
"""Harvest the model shapes behind Megatron Bridge recipe names into a committed table.

A Bridge recipe (``qwen3_30b_a3b_pretrain_config``) builds its model with
``AutoBridge.from_hf_pretrained("Qwen/Qwen3-30B-A3B")`` or a provider class, then sets layout and
sequence length with ``cfg.model.x = ...`` assignments. This script reads both from the Bridge
source at each tag (a bare git directory; ``git show TAG:path``), parsed with :mod:`ast` and never
executed:

- the recipe function's literal ``cfg.<section>.<field> = value`` assignments;
- the provider class the recipe's model comes from: named in the recipe, or found by the Hugging
  Face id in a provider's docstring, or by the recipe's name (``llama3_8b`` ->
  ``Llama3ModelProvider8B``); its dataclass defaults are followed up the class chain to
  ``GPTModelProvider``/``MambaModelProvider``.

Every value carries ``TAG:file:line``. Only extracted values are written, never upstream code.

    python scripts/harvest_bridge_recipe_shapes.py --git-dir BRIDGE.git \\
        --tags v0.3.1 v0.4.0 v0.5.0 v0.6.0 --out skill_tools/plan/bridge_recipes.json
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
from pathlib import Path

#: Provider/recipe fields the plan reads (ModelShape and Layout inputs).
FIELDS = (
    "num_layers", "hidden_size", "ffn_hidden_size", "num_attention_heads", "num_query_groups", "kv_channels",
    "seq_length", "vocab_size", "normalization", "activation_func", "gated_linear_unit", "position_embedding_type",
    "qk_layernorm", "add_bias_linear", "add_qkv_bias", "share_embeddings_and_output_weights", "num_moe_experts",
    "moe_router_topk", "moe_ffn_hidden_size", "moe_token_dispatcher_type", "moe_grouped_gemm",
    "moe_expert_capacity_factor", "moe_pad_expert_input_to_capacity", "moe_shared_expert_intermediate_size",
    "moe_layer_freq", "hybrid_override_pattern", "hybrid_layer_pattern", "mamba_state_dim", "mamba_head_dim",
    "mamba_num_groups", "mamba_num_heads", "multi_latent_attention", "q_lora_rank", "kv_lora_rank",
    "recompute_granularity", "recompute_method", "recompute_num_layers", "tensor_model_parallel_size",
    "pipeline_model_parallel_size", "virtual_pipeline_model_parallel_size", "context_parallel_size",
    "expert_model_parallel_size", "expert_tensor_parallel_size", "sequence_parallel", "micro_batch_size",
    "global_batch_size", "cuda_graph_impl", "cuda_graph_scope", "fp8", "fp8_recipe",
)
#: A recipe resolves only when these are known (the layer shape needs them).
REQUIRED = ("num_layers", "hidden_size", "num_attention_heads", "seq_length")
_RECIPE = re.compile(r"^(?P<name>\w+?)_pretrain_config$")


def git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True,
                          text=True).stdout


def literal(node: ast.AST, consts: dict[str, object]):
    """(ok, value): literals, ``F.silu``-style names (as their last part) and module constants."""
    if isinstance(node, ast.Attribute):  # F.silu, torch.nn.functional.gelu: the function's name
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        return (True, node.attr) if getattr(root, "id", "") in ("F", "torch", "nn", "functional") else (False, None)
    if isinstance(node, ast.Name):
        return (True, consts[node.id]) if node.id in consts else (False, None)
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "field":
        for kw in node.keywords:  # field(default_factory=lambda: [0] + [1] * 26)
            if kw.arg == "default_factory" and isinstance(kw.value, ast.Lambda):
                return literal(kw.value.body, consts)
        return False, None
    if isinstance(node, ast.List):
        items = [literal(e, consts) for e in node.elts]
        return (True, [v for _, v in items]) if all(ok for ok, _ in items) else (False, None)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult)):
        ok_l, left = literal(node.left, consts)
        ok_r, right = literal(node.right, consts)
        if ok_l and ok_r:
            try:
                return True, left + right if isinstance(node.op, ast.Add) else left * right
            except TypeError:
                return False, None
        return False, None
    try:
        return True, ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError):
        return False, None


def module_constants(tree: ast.Module) -> dict[str, object]:
    out: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            ok, value = literal(node.value, out)
            if ok:
                out[node.targets[0].id] = value
    return out


def modules(git_dir: str, tag: str, files: list[str], consts: dict[str, object]):
    """(path, parsed module, its constants over ``consts``) for each file at ``tag``."""
    for path in files:
        tree = ast.parse(git(git_dir, "show", f"{tag}:{path}"))
        yield path, tree, {**consts, **module_constants(tree)}


def providers(git_dir: str, tag: str, files: list[str], consts: dict[str, object]) -> dict[str, dict]:
    """Provider dataclasses: name -> {bases, fields {name: (value, file:line)}, doc, at}."""
    out: dict[str, dict] = {}
    for path, tree, local in modules(git_dir, tag, files, consts):
        for node in tree.body:
            if not isinstance(node, ast.ClassDef):
                continue
            fields = {}
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and item.value is not None:
                    if item.target.id in FIELDS:
                        ok, value = literal(item.value, local)
                        if not ok and item.target.id == "activation_func" and isinstance(item.value, ast.Name):
                            ok, value = True, item.value.id  # a function defined or imported by name
                        if ok:
                            fields[item.target.id] = (value, f"{path}:{item.lineno}")
            bases = [b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases]
            if any(b.startswith("MLA") for b in bases):  # megatron-core's MLATransformerConfig: MLA attention
                fields.setdefault("multi_latent_attention", (True, f"{path}:{node.lineno}"))
            out[node.name] = {"bases": bases, "fields": fields, "doc": ast.get_docstring(node) or "",
                              "at": f"{path}:{node.lineno}"}
    return out


def resolved_fields(name: str, table: dict[str, dict]) -> dict[str, tuple[object, str]]:
    """Fields of ``name`` with inherited defaults (the nearest class wins)."""
    out: dict[str, tuple[object, str]] = {}
    seen: set[str] = set()
    queue = [name]
    while queue:
        cls = queue.pop(0)
        if cls in seen or cls not in table:
            continue
        seen.add(cls)
        for key, value in table[cls]["fields"].items():
            out.setdefault(key, value)
        queue.extend(table[cls]["bases"])
    return out


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower().replace("modelprovider", "").replace("provider", ""))


def find_provider(recipe: str, hf_id: str | None, named: str | None, table: dict[str, dict]) -> str | None:
    if named and named in table:
        return named
    if hf_id:
        hits = [n for n, c in table.items() if re.search(rf"huggingface\.co/{re.escape(hf_id)}\b", c["doc"])]
        if len(hits) == 1:
            return hits[0]
    key = _norm(recipe)
    hits = [n for n in table if _norm(n) in (key, key.replace("moe", ""))
            or _norm(n).replace("moe", "") == key]
    return hits[0] if len(hits) == 1 else None


def recipes(git_dir: str, tag: str, files: list[str], consts: dict[str, object]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for path, tree, local in modules(git_dir, tag, files, consts):
        for fn in tree.body:
            m = _RECIPE.match(getattr(fn, "name", "")) if isinstance(fn, ast.FunctionDef) else None
            if not m:
                continue
            values: dict[str, tuple[object, str]] = {}
            hf_id = named = None
            for node in ast.walk(fn):
                if isinstance(node, ast.Call):
                    func = node.func
                    fname = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                    if fname == "from_hf_pretrained" and node.args and isinstance(node.args[0], ast.Constant):
                        hf_id = str(node.args[0].value)
                    elif fname.endswith("Provider") or re.search(r"Provider\w+$", fname or ""):
                        named = fname
                        for kw in node.keywords:
                            if kw.arg in FIELDS:
                                ok, value = literal(kw.value, local)
                                if ok:
                                    values[kw.arg] = (value, f"{path}:{kw.value.lineno}")
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    tgt = node.targets[0]
                    chain = []
                    while isinstance(tgt, ast.Attribute):
                        chain.append(tgt.attr)
                        tgt = tgt.value
                    if chain and chain[0] in FIELDS and len(chain) >= 2:
                        ok, value = literal(node.value, local)
                        if ok:
                            values[chain[0]] = (value, f"{path}:{node.lineno}")
            out[m.group("name")] = {"at": f"{path}:{fn.lineno}", "hf_id": hf_id, "provider": named,
                                    "values": values}
    return out


def harvest(git_dir: str, tags: list[str]) -> dict:
    table: dict[str, dict] = {}
    for tag in tags:
        files = git(git_dir, "ls-tree", "-r", "--name-only", tag, "src/megatron/bridge").split()
        prov_files = [f for f in files if re.search(r"src/megatron/bridge/models/.*provider.*\.py$", f)]
        recipe_files = [f for f in files if f.startswith("src/megatron/bridge/recipes/") and f.endswith(".py")]
        consts: dict[str, object] = {}
        for f in files:
            if f.endswith("recipes/utils/tokenizer_utils.py") or f.endswith("recipes/common.py"):
                consts.update(module_constants(ast.parse(git(git_dir, "show", f"{tag}:{f}"))))
        prov = providers(git_dir, tag, prov_files, consts)
        for name, rec in recipes(git_dir, tag, recipe_files, consts).items():
            cls = find_provider(name, rec["hf_id"], rec["provider"], prov)
            values = {k: {"value": v, "at": f"{tag}:{at}", "from": f"provider {cls}"}
                      for k, (v, at) in (resolved_fields(cls, prov) if cls else {}).items()}
            values.update({k: {"value": v, "at": f"{tag}:{at}", "from": "recipe"} for k, (v, at) in rec["values"].items()})
            if any(k not in values or values[k]["value"] is None for k in REQUIRED):
                continue  # the shape lives only in the Hugging Face config: not resolvable offline
            table[name] = {"tag": tag, "recipe": f"{tag}:{rec['at']}", "function": f"{name}_pretrain_config",
                           "hf_id": rec["hf_id"], "provider": cls,
                           "provider_at": f"{tag}:{prov[cls]['at']}" if cls else None,
                           "values": dict(sorted(values.items()))}
    return {"schema_version": 1, "source": "github.com/NVIDIA-NeMo/Megatron-Bridge", "tags": tags,
            "note": "extracted values only (ast, never executed); the latest tag that resolves a recipe wins",
            "recipes": dict(sorted(table.items()))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--git-dir", required=True, help="a bare clone of Megatron-Bridge")
    ap.add_argument("--tags", nargs="+", default=["v0.3.1", "v0.4.0", "v0.5.0", "v0.6.0"])
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    doc = harvest(args.git_dir, args.tags)
    args.out.write_text(json.dumps(doc, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    print(f"{len(doc['recipes'])} recipes -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
