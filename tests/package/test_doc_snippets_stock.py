"""Doc snippets pasted into NVIDIA's stock Megatron Bridge recipes, judged by Bridge itself.

Every Bridge configuration snippet (Python ``cfg.…`` lines, YAML, Hydra overrides) tagged
``era=0.19`` in SKILL.md and references/ is applied to fresh stock recipes of the installed Bridge
(Llama-3 8B, Qwen3-30B-A3B, DeepSeek-V3, GPT-OSS 20B, Nemotron-H 8B, Qwen2.5-VL 7B; see
``bridge_stock.py``), then Bridge's own pre-run path runs: ``runtime_config_update`` →
``ConfigContainer.validate()`` → the model provider's ``finalize()`` (megatron-core's
``TransformerConfig.__post_init__`` asserts included). A snippet that needs a companion line on
some recipes must carry it; a snippet that is meant for only some families says so in its info
string with ``recipes=a,b`` (ids from ``bridge_stock.STOCK_RECIPES``) and the reason beside it.

``skill-tools apply`` is held to the same test: its output for the same intent, applied the same
way, must pass on the same recipes.

Skips (with the reason) where ``megatron.bridge`` + Transformer Engine do not import.
"""

from __future__ import annotations

import ast
import re

import pytest

from bridge_stock import STOCK_RECIPES, bridge_skip_reason, finalize_like_pretrain, stock_config
from test_doc_snippets import ALL_BLOCKS, Snippet, extract

_SKIP = bridge_skip_reason()
pytestmark = pytest.mark.skipif(_SKIP is not None, reason=_SKIP or "")


def _is_bridge(s: Snippet) -> bool:
    if "0.19" not in s.eras:
        return False
    if s.lang == "python":
        return "cfg." in s.body
    if s.lang == "yaml":
        return True
    return s.lang == "bash" and "pretrain.py " in s.body and "run_script.py" not in s.body


BRIDGE_SNIPPETS = [s for s in ALL_BLOCKS if _is_bridge(s)]


def families(s: Snippet) -> list[str]:
    m = re.search(r"\brecipes=(\S+)", s.info)
    if not m:
        return list(STOCK_RECIPES)
    chosen = m.group(1).split(",")
    unknown = set(chosen) - set(STOCK_RECIPES)
    assert not unknown, f"{s.id}: unknown recipes= ids {sorted(unknown)}"
    return chosen


def python_assignments(body: str) -> dict[str, object]:
    """``cfg.a.b = <literal>`` lines, parsed (never executed)."""
    out: dict[str, object] = {}
    for node in ast.parse(body).body:
        assert isinstance(node, ast.Assign) and len(node.targets) == 1, ast.unparse(node)
        parts, target = [], node.targets[0]
        while isinstance(target, ast.Attribute):
            parts.append(target.attr)
            target = target.value
        assert isinstance(target, ast.Name) and target.id == "cfg", ast.unparse(node)
        out[".".join(reversed(parts))] = ast.literal_eval(node.value)
    return out


def assignments(s: Snippet) -> dict[str, object]:
    if s.lang == "python":
        return python_assignments(s.body)
    return dict(extract(s).config)


def apply_to(cfg, values: dict[str, object]) -> None:
    for dotted, value in values.items():
        *path, name = dotted.split(".")
        obj = cfg
        for part in path:
            obj = getattr(obj, part)
        assert hasattr(obj, name), f"{type(obj).__name__} has no field {name!r} (from {dotted})"
        setattr(obj, name, value)


CASES = [(s, f) for s in BRIDGE_SNIPPETS for f in families(s)]


def test_bridge_snippets_are_found() -> None:
    langs = {s.lang for s in BRIDGE_SNIPPETS}
    assert {"python", "yaml", "bash"} <= langs, langs
    assert len(BRIDGE_SNIPPETS) >= 8


@pytest.mark.parametrize("family", list(STOCK_RECIPES))
def test_stock_recipe_itself_passes(family: str) -> None:
    cfg = stock_config(family)
    finalize_like_pretrain(cfg, family)


@pytest.mark.parametrize(("snippet", "family"), CASES, ids=lambda x: x.id if isinstance(x, Snippet) else x)
def test_snippet_on_stock_recipe_passes_bridge(snippet: Snippet, family: str) -> None:
    cfg = stock_config(family)
    apply_to(cfg, assignments(snippet))
    finalize_like_pretrain(cfg, family)
    assert cfg.model.cuda_graph_impl != "none"


# --- skill-tools apply, held to the same test ---------------------------------------------------

APPLY_INTENTS = {
    # intent -> (apply flags, the families it is for)
    "te-dense": (["--impl", "transformer_engine", "--scope", "attn,mlp"], ["llama3-8b", "nemotronh-8b", "qwen25-vl-7b"]),
    "te-moe": (["--impl", "transformer_engine", "--scope", "attn,moe_router,moe_preprocess"],
               ["qwen3-30b-a3b", "gpt-oss-20b"]),
    "full-iteration": (["--impl", "full_iteration"], ["llama3-8b", "nemotronh-8b", "qwen25-vl-7b"]),
}
APPLY_CASES = [(i, f) for i, (_, fams) in APPLY_INTENTS.items() for f in fams]


def _graph_keys_of(cfg) -> dict:
    """The recipe's own CUDA-graph keys, as a user's config dump of it shows them."""
    def plain(v):
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        return getattr(v, "name", v)
    keys = ("cuda_graph_impl", "cuda_graph_scope", "cuda_graph_warmup_steps", "num_moe_experts",
            "moe_token_dispatcher_type", "moe_grouped_gemm", "moe_expert_capacity_factor", "recompute_granularity")
    return {k: plain(getattr(cfg.model, k)) for k in keys}


def _apply(tmp_path, model_keys: dict, flags: list[str]) -> dict:
    import subprocess
    import sys

    import yaml

    src, out = tmp_path / "recipe.yaml", tmp_path / "out.yaml"
    src.write_text(yaml.safe_dump({"model": model_keys}), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "skill_tools", "apply", str(src), *flags, "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr
    return yaml.safe_load(out.read_text(encoding="utf-8"))


def _flatten(tree: dict) -> dict[str, object]:
    return {f"{section}.{k}": v for section, body in tree.items() for k, v in body.items()}


@pytest.mark.parametrize(("intent", "family"), APPLY_CASES)
def test_apply_on_the_recipes_graph_keys_passes_bridge(tmp_path, intent: str, family: str) -> None:
    """A config dump that shows the recipe's graph keys: apply rewrites them, Bridge accepts."""
    flags, _ = APPLY_INTENTS[intent]
    written = _apply(tmp_path, _graph_keys_of(stock_config(family)), flags)
    cfg = stock_config(family)
    apply_to(cfg, _flatten(written))
    finalize_like_pretrain(cfg, family)
    assert cfg.model.cuda_graph_impl != "none"


@pytest.mark.parametrize("family", ["llama3-8b"])
def test_apply_on_an_overrides_file_without_the_scope_passes_bridge(tmp_path, family: str) -> None:
    """An overrides file that never names cuda_graph_scope gets an explicit null from apply (0.18+),
    so the stock recipe's cuda_graph_scope='full' does not meet cuda_graph_modules in megatron-core."""
    written = _apply(tmp_path, {"cuda_graph_warmup_steps": 3}, APPLY_INTENTS["te-dense"][0])
    cfg = stock_config(family)
    apply_to(cfg, _flatten(written))
    finalize_like_pretrain(cfg, family)
