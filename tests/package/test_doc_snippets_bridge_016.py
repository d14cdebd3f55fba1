"""0.16-era Bridge snippets pasted over the graph keys of NVIDIA's Bridge v0.3.1 recipes.

Bridge v0.3.x (the release for megatron-core 0.16–0.17) cannot be imported next to this
project's environments, so its recipes are read statically: ``scripts/extract_bridge_recipe_graph_keys.py``
records, per recipe, the literal graph-relevant keys it sets (with file and line) into
``tests/fixtures/stock/bridge_v0.3.1_recipe_keys.json``. Each ``era=0.16`` Bridge snippet is laid
over those keys (the snippet wins, as a pasted line would), then judged by the rule catalog for
0.16 and, in the legacy env, by megatron-core 0.16.1's own ``TransformerConfig``.
"""

from __future__ import annotations

import dataclasses
import json
import re
import warnings
from pathlib import Path

import pytest

from skill_tools.config.era import era_for
from test_doc_snippets import ALL_BLOCKS, FAMILY_CONTEXT, Snippet, _installed_era, extract
from test_doc_snippets_stock import assignments

REPO = Path(__file__).resolve().parents[2]
FACTS = json.loads((REPO / "tests" / "fixtures" / "stock" / "bridge_v0.3.1_recipe_keys.json").read_text())
RECIPES = FACTS["recipes"]


def bridge_016_snippets() -> list[Snippet]:
    return [s for s in ALL_BLOCKS if "0.16" in s.eras and s.eras == ("0.16",)
            and (s.lang in ("python", "yaml") or (s.lang == "bash" and "pretrain.py " in s.body))
            and "run_script.py" not in s.body and "cfg." in s.body + "cfg." * (s.lang != "python")]


def families(s: Snippet) -> list[str]:
    m = re.search(r"\brecipes=(\S+)", s.info)
    return m.group(1).split(",") if m else list(RECIPES)


def merged(s: Snippet, family: str) -> dict[str, object]:
    stock = {k: v["value"] for k, v in RECIPES[family]["keys"].items()}
    return {**FAMILY_CONTEXT.get(family, {}), **stock, **assignments(s)}


CASES = [pytest.param(s, f, id=f"{s.id}-{f}") for s in bridge_016_snippets() for f in families(s)]


@pytest.mark.legacy
def test_facts_cover_the_families_and_set_graph_keys() -> None:
    assert {"llama3-8b", "qwen3-30b-a3b", "deepseek-v3", "gpt-oss-20b", "nemotronh-8b", "qwen25-vl-7b"} <= set(RECIPES)
    assert RECIPES["llama3-8b"]["keys"]["model.cuda_graph_scope"]["value"] == "full"
    assert len(CASES) >= 3


@pytest.mark.legacy
@pytest.mark.parametrize(("snippet", "family"), CASES)
def test_016_snippet_over_v031_recipe_passes(snippet: Snippet, family: str) -> None:
    from skill_tools.config.model import CanonicalConfig
    from skill_tools.rules import engine

    values = merged(snippet, family)
    cfg = CanonicalConfig(fmt="dict")
    for key, value in values.items():
        cfg.set(key, value)
    errors = [f for f in engine.check(cfg, era_for("0.16.1")) if f.severity == "error"]
    assert not errors, f"{snippet.id} on {family}@v0.3.1: " + "; ".join(f"{f.rule}: {f.message}" for f in errors)
    if _installed_era() != "0.16":
        return
    from megatron.core.transformer.transformer_config import TransformerConfig

    # Kernel-availability switches (fused permute/router need TE's kernels) are not graph settings.
    fields = {f.name for f in dataclasses.fields(TransformerConfig)} - {"moe_permute_fusion", "moe_router_fusion"}
    kwargs = {"num_layers": 2, "hidden_size": 64, "num_attention_heads": 4}
    kwargs.update({k.split(".", 1)[1]: v for k, v in values.items() if k.startswith("model.") and k.split(".", 1)[1] in fields})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert TransformerConfig(**kwargs).cuda_graph_impl != "none"
