"""Answers that write several configs: a second attempt that replaces the first, one config per
file or per labelled recipe, two objects in one notebook. Answers written for these tests."""

from __future__ import annotations

from skill_tools.evaluation.extract import extract_config

from one_answer import checks_of, score_one

F = "```"


def test_a_later_block_with_another_impl_replaces_the_earlier_graph_settings():
    text = (f"First try:\n\n{F}python\ncfg.model.cuda_graph_impl = \"full_iteration\"\ncfg.model.cuda_graph_modules = []\n{F}\n\n"
            "That fails on 0.16.1. Use this one:\n\n"
            f"{F}python\ncfg.model.cuda_graph_impl = \"local\"\ncfg.model.cuda_graph_scope = [\"full_iteration\"]\n{F}\n")
    cfg = extract_config(text).select("legacy").config
    assert cfg.get("model.cuda_graph_impl") == "local" and cfg.get("model.cuda_graph_scope") == ["full_iteration"]
    assert not cfg.has("model.cuda_graph_modules")


def test_lines_of_one_block_are_one_config():
    text = f"{F}bash\nARGS+=(\n  --enable-cuda-graph\n  --cuda-graph-impl full_iteration\n)\n{F}\n"
    cfg = extract_config(text).config
    assert cfg.get("model.enable_cuda_graph") is True and cfg.get("model.cuda_graph_impl") == "full_iteration"


def test_configs_of_two_files_with_two_impls_are_judged_apart():
    text = (f"**`recipes/dense.py`**\n{F}python\ncfg.model.cuda_graph_impl = \"full_iteration\"\n"
            f"cfg.model.cuda_graph_modules = []\n{F}\n\n**`recipes/moe.py`**\n{F}python\n"
            f"cfg.model.cuda_graph_impl = \"transformer_engine\"\ncfg.model.cuda_graph_modules = [\"attn\", \"moe_router\"]\n{F}\n")
    ex = extract_config(text)
    assert ex.config.get("model.cuda_graph_impl") == "full_iteration" and ex.config.get("model.cuda_graph_modules") == []
    assert [a.get("model.cuda_graph_impl") for a in ex.alternatives] == ["transformer_engine"]


def test_labelled_recipes_are_judged_apart_too():
    text = (f"**Recipe 1:**\n\n{F}python\ncfg.model.enable_cuda_graph = True\ncfg.model.cuda_graph_impl = \"full_iteration\"\n{F}\n\n"
            f"**Recipe 2:**\n\n{F}python\ncfg.model.cuda_graph_impl = \"transformer_engine\"\n{F}\n")
    ex = extract_config(text)
    assert ex.config.get("model.enable_cuda_graph") is True  # recipe 1's own mistake stays visible


def test_two_objects_of_a_notebook_cell_are_code_not_prose():
    text = ("# In[2]:\ncfg2.model.cuda_graph_impl = \"transformer_engine\"\n"
            "cfg2.model.cuda_graph_modules = [\"attn\"]\n")
    ex = extract_config(text)
    assert {b.origin for b in ex.blocks if b.cfg is not None and b.cfg.values} == {"unfenced"}


def test_a_rename_is_not_a_value_and_none_is_null():
    text = ("Recipe 2 renames cuda_graph_scope to cuda_graph_modules. On Bridge also clear the recipe's old key: "
            "`cfg.model.cuda_graph_scope = None`.")
    cfg = extract_config(text).config
    assert cfg.has("model.cuda_graph_scope") and cfg.get("model.cuda_graph_scope") is None
    assert not cfg.has("model.cuda_graph_modules")


def test_a_table_under_option_b_is_option_b():
    text = ("Two ways out:\n\n**Option A — selective recompute**\n\n`recompute_granularity=\"selective\"`, TE graphs on "
            "`attn`.\n\n**Option B — full iteration**\n\n| | 0.18+ |\n|---|---|\n| impl | `cuda_graph_impl=\"full_iteration\"` |\n"
            "| RNG | same |\n")
    ex = extract_config(text).select("current")
    assert not ex.config.has("model.cuda_graph_impl") and "RNG" not in ex.config.env
    assert any(a.get("model.cuda_graph_impl") == "full_iteration" for a in ex.alternatives)


def test_numbered_items_after_you_have_to_choose_are_options():
    text = ("You have to choose:\n\n1. Graphs, no offloading:\n   " + F + "python\n   cfg.model.cpu_offloading = False\n"
            "   cfg.model.cuda_graph_impl = \"transformer_engine\"\n   " + F + "\n"
            "2. Keep `cpu_offloading=True` and disable graphs (`cuda_graph_impl=\"none\"`).\n")
    ex = extract_config(text)
    assert ex.config.get("model.cpu_offloading") is False and ex.config.get("model.cuda_graph_impl") == "transformer_engine"
    assert any(a.get("model.cpu_offloading") is True for a in ex.alternatives)


def test_an_option_is_not_charged_for_companions_it_leaves_unsaid():
    answer = ("Local with a per-module scope is not supported for training; use TE:\n\n" + F + "python\n"
              "cfg.model.cuda_graph_impl = \"transformer_engine\"\ncfg.model.cuda_graph_modules = [\"mlp\"]\n"
              "cfg.model.use_te_rng_tracker = True\ncfg.rng.te_rng_tracker = True\n" + F + "\n\n"
              "Keep `local` only if you want a full-iteration graph (`cuda_graph_impl=\"full_iteration\"` on 0.18+).\n")
    checks = checks_of(score_one("local-partial-scope-crash", answer), "options")
    assert checks and checks[0]["score"] == 1.0  # the full-iteration option is judged, and passes


def test_a_dict_of_sections_passed_to_a_call_is_read():
    text = (F + "python\ngraph_overrides = OmegaConf.create({\n    \"model\": {\"cuda_graph_impl\": \"transformer_engine\", "
            "\"cuda_graph_modules\": [\"attn\"]},\n    \"rng\": {\"te_rng_tracker\": True},\n})\n" + F + "\n")
    cfg = extract_config(text).config
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine" and cfg.get("rng.te_rng_tracker") is True


def test_an_intro_that_names_the_cause_still_introduces_the_fix():
    text = ("Only the router is the problem, so remove it from the graph list and keep the rest:\n\n" + F + "python\n"
            "cfg.model.cuda_graph_modules = [\"attn\", \"moe_preprocess\"]\n" + F + "\n")
    assert extract_config(text).config.get("model.cuda_graph_modules") == ["attn", "moe_preprocess"]


def test_an_unfenced_script_with_a_nested_overrides_dict_is_read():
    text = ("# switch the implementation and keep packing\nbase, excluded = make_base(cfg)\noverrides = {\n    \"model\": {\n"
            "        \"cuda_graph_impl\": \"local\",\n        \"cuda_graph_modules\": [\"attn\"],\n    },\n"
            "    \"rng\": {\"te_rng_tracker\": True},\n}\napply_overrides(cfg, overrides, excluded)\n")
    cfg = extract_config(text).config
    assert cfg.get("model.cuda_graph_impl") == "local" and cfg.get("rng.te_rng_tracker") is True


def test_a_review_thread_in_quotes_is_the_answer():
    text = ("> **@author**\n> Our run dies with the RNG tracker assert.\n\n> **@reviewer** — changes requested\n"
            "> Please don't patch TE. Set\n> " + F + "python\n> cfg.model.use_te_rng_tracker = True\n"
            "> cfg.rng.te_rng_tracker = True\n> " + F + "\n")
    cfg = extract_config(text).config
    assert cfg.get("model.use_te_rng_tracker") is True and cfg.get("rng.te_rng_tracker") is True


def test_a_ditto_cell_repeats_the_cell_to_its_left():
    text = ("| setting | 0.16–0.17 | 0.18+ |\n|---|---|---|\n| list key | `cuda_graph_scope=[\"attn\"]` | "
            "`cuda_graph_modules=[\"attn\"]` |\n| RNG | `use_te_rng_tracker=True` | same |\n")
    cfg = extract_config(text).select("current").config
    assert cfg.get("model.cuda_graph_modules") == ["attn"] and cfg.get("model.use_te_rng_tracker") is True
