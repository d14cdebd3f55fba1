"""A notebook exported as Python (Databricks ``# MAGIC`` lines, Jupytext ``# %% [markdown]`` cells):
its Markdown cells are read as the Markdown they are, its code cells as code. The answers are written
for these tests, in styles of their own."""

from __future__ import annotations

from skill_tools.evaluation.extract import extract_config
from skill_tools.evaluation.notebook_cells import markdown_cells

DATABRICKS = """# Databricks notebook source
# MAGIC %md
# MAGIC ## Fix
# MAGIC Keep the fused wgrad path and narrow the scope:
# MAGIC
# MAGIC ```
# MAGIC --cuda-graph-impl transformer_engine --cuda-graph-modules attn
# MAGIC ```

# COMMAND ----------

steps = 120
"""

PERCENT = """# %% [markdown]
# Graphs need a static boundary tensor; use offline packing with padded cu_seqlens.

# %%
cfg.dataset.pad_to_max_length = True
cfg.model.cuda_graph_impl = "transformer_engine"

# %% [markdown]
# If the stack is older (no pad_cu_seqlens support), just set
# cfg.model.cuda_graph_impl = "none" for packed SFT.
"""


def test_databricks_markdown_lines_are_read_as_markdown():
    text = markdown_cells(DATABRICKS)
    assert text.count("\n") == DATABRICKS.count("\n")  # every line stays where it is
    assert "--cuda-graph-impl transformer_engine" in text and "# MAGIC" not in text
    cfg = extract_config(DATABRICKS, era="current").config
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine" and cfg.get("model.cuda_graph_modules") == ["attn"]


def test_percent_format_markdown_cells_are_uncommented_and_code_cells_kept():
    text = markdown_cells(PERCENT)
    assert "\nIf the stack is older" in text and 'cfg.model.cuda_graph_impl = "transformer_engine"' in text
    ex = extract_config(PERCENT, era="current")
    assert ex.config.get("model.cuda_graph_impl") == "transformer_engine"  # the fallback for an older stack is an option
    assert any(a.get("model.cuda_graph_impl") == "none" for a in ex.alternatives)


def test_a_plain_answer_is_left_alone():
    text = "Set `cuda_graph_impl=transformer_engine`.\n# MAGIC is a word here\n"
    assert markdown_cells(text) == text


IPYTHON = """In [1]: cfg = llama31_8b_pretrain_config()

In [2]: cfg.model.cuda_graph_impl = "transformer_engine"
   ...: cfg.model.cuda_graph_modules = ["attn"]
   ...: cfg.model.use_te_rng_tracker = cfg.rng.te_rng_tracker = True

In [3]: # Run train_iters=10 for both and compare the mean "elapsed time per iteration"
   ...: # over all 10 iterations. That is the honest end-to-end number.
"""


def test_an_ipython_sessions_prompts_are_not_part_of_what_it_says():
    from one_answer import checks_of, score_one

    assert "\n# over all 10 iterations." in markdown_cells(IPYTHON)
    row = score_one("dense-te-scoped-bringup", IPYTHON)
    assert any(c["score"] == 0.0 for c in checks_of(row, "timing_window")), row["fatal"]
