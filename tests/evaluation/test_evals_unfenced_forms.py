"""Forms pasted without a fence: a unified diff (with git format-patch's signature), a hashtable
of quoted dotted overrides (PowerShell, Perl, Lua), a JSON5 document; and prose that mentions a
line of the other era's spelling only to remove it, in any language."""

from __future__ import annotations

import pytest

from skill_tools.evaluation.extract import extract_config

DIFF = """Patch:

diff --git a/recipes/a.py b/recipes/a.py
--- a/recipes/a.py
+++ b/recipes/a.py
@@ -40,4 +40,5 @@ def cfg_fn():
     cfg = base()
-    cfg.model.enable_cuda_graph = True
-    cfg.model.cuda_graph_scope = ["full_iteration"]
+    cfg.model.cuda_graph_impl = "full_iteration"
+    cfg.model.cuda_graph_modules = []
     return cfg
-- 
2.47.1

Make sure no base recipe still sets `enable_cuda_graph=True`.
"""


def test_an_unfenced_diff_reads_its_new_side_and_rejects_its_old():
    ex = extract_config(DIFF, era="current")
    assert ex.config.get("model.cuda_graph_impl") == "full_iteration" and ex.config.get("model.cuda_graph_modules") == []
    assert not ex.config.has("model.enable_cuda_graph")
    assert ex.counter_config.get("model.enable_cuda_graph") is True


@pytest.mark.parametrize("table", [
    "$Graph = [ordered]@{\n    'model.cuda_graph_impl' = 'full_iteration'\n    'model.cuda_graph_modules' = '[]'\n}",
    "my %graph = (\n    'model.cuda_graph_impl' => 'full_iteration',\n    'model.cuda_graph_modules' => '[]',\n);",
    "local graph = {\n  [\"model.cuda_graph_impl\"] = \"full_iteration\",\n  [\"model.cuda_graph_modules\"] = \"[]\",\n}",
], ids=["powershell", "perl", "lua"])
def test_a_hashtable_of_quoted_dotted_overrides_is_read(table):
    cfg = extract_config(f"Overrides:\n\n{table}\n\nThen launch.\n").config
    assert cfg.get("model.cuda_graph_impl") == "full_iteration" and cfg.get("model.cuda_graph_modules") == []


def test_a_json5_document_is_read_whole():
    text = ("// overrides.json5\n{\n  model: {\n    cuda_graph_impl: \"transformer_engine\",\n"
            "    cuda_graph_scope: [\"full_iteration\"],  // the scope list\n  },\n  rng: { te_rng_tracker: true, },\n}\n")
    cfg = extract_config(text, era="legacy").config
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine"
    assert cfg.get("model.cuda_graph_scope") == ["full_iteration"]


def test_the_other_eras_line_named_to_remove_it_is_not_advice():
    # Kazakh: "Remove the `cfg.model.cuda_graph_modules = []` line entirely." (the verb comes last)
    text = ("0.17:\n\n```python\ncfg.model.cuda_graph_impl = \"local\"\ncfg.model.cuda_graph_scope = [\"full_iteration\"]\n```\n\n"
            "`cfg.model.cuda_graph_modules = []` жолын мүлдем алып тастаңыз.\n")
    cfg = extract_config(text, era="legacy").config
    assert not cfg.has("model.cuda_graph_modules") and cfg.get("model.cuda_graph_scope") == ["full_iteration"]
