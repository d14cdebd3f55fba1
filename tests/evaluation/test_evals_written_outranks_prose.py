"""The config an answer writes down (a code block, a table row, a changed file) outranks a setting a
sentence only mentions: a sentence without "set", "use", "add" or a label describes (what another
implementation permits, what a line replaces, what a key becomes after an upgrade). A sentence that
asks for a setting still adds it, and an answer written only in prose is read from its prose.
Answers written for these tests."""

from __future__ import annotations

from skill_tools.evaluation.extract import extract_config
from skill_tools.evaluation.polarity import RECOMMENDED, LinePolarity

from one_answer import bundled_tasks, checks_of, score_one


def _config(text: str, era: str | None = None):
    ex = extract_config(text)
    return (ex.select(era) if era else ex).config


def test_a_sentence_naming_what_another_impl_permits_does_not_override_the_table():
    text = ("| flag | value |\n|---|---|\n| `--cuda-graph-impl` | `local` |\n"
            "| `--inference-cuda-graph-scope` | `block` |\n\n"
            "Not `transformer_engine` here: those graphs only permit `inference_cuda_graph_scope=none`.\n")
    cfg = _config(text)
    assert cfg.get("model.cuda_graph_impl") == "local"
    assert cfg.get("model.inference_cuda_graph_scope") == "block"


def test_an_aside_naming_the_replaced_keys_adds_nothing_to_the_block():
    text = ("```python\ncfg.model.cuda_graph_impl = \"local\"\ncfg.model.cuda_graph_modules = []\n```\n\n"
            "(this supersedes `enable_cuda_graph = True` and `cuda_graph_scope = [\"full_iteration\"]` "
            "from the old recipe)\n")
    cfg = _config(text, "current")
    assert not cfg.has("model.enable_cuda_graph") and not cfg.has("model.cuda_graph_scope")
    assert cfg.get("model.cuda_graph_impl") == "local"


def test_what_a_flag_becomes_after_an_upgrade_is_not_added_to_the_launch():
    text = ("```bash\npython gpt_dynamic_inference.py --cuda-graph-impl local "
            "--cuda-graph-scope full_iteration_inference\n```\n\n"
            "When you move up a release this turns into `--inference-cuda-graph-scope block`.\n")
    cfg = _config(text, "legacy")
    assert not cfg.has("model.inference_cuda_graph_scope")
    assert cfg.get("model.cuda_graph_scope") == ["full_iteration_inference"]


def test_a_sentence_that_asks_for_a_setting_still_adds_it():
    text = ("```yaml\nmodel:\n  cuda_graph_impl: local\n```\n\n"
            "Also set `inference_cuda_graph_scope=block` so the whole block is one graph.\n")
    assert _config(text).get("model.inference_cuda_graph_scope") == "block"


def test_a_labelled_setting_in_prose_is_asked_for():
    line = "Fix: `cuda_graph_impl=transformer_engine`"
    start = line.index("`")
    p = LinePolarity(line).at(start, len(line))
    assert p.role == RECOMMENDED and p.why


def test_an_answer_in_prose_only_is_read_from_its_prose():
    text = "For 0.19 the graphs come from `cuda_graph_impl=\"local\"` with `inference_cuda_graph_scope=\"layer\"`."
    cfg = _config(text)
    assert cfg.get("model.cuda_graph_impl") == "local"
    assert cfg.get("model.inference_cuda_graph_scope") == "layer"


def test_a_prose_value_that_agrees_with_the_block_is_kept_and_other_keys_are_added():
    text = ("```yaml\nmodel:\n  cuda_graph_impl: transformer_engine\n  cuda_graph_modules: [attn]\n```\n\n"
            "`cuda_graph_impl=transformer_engine` needs `use_te_rng_tracker=true` next to it.\n")
    cfg = _config(text)
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine"
    assert cfg.get("model.use_te_rng_tracker") is True


def test_a_table_of_megatron_lm_flags_and_their_values_is_read():
    text = ("| flag | value |\n|---|---|\n| `--cuda-graph-impl` | `local` |\n"
            "| `--inference-cuda-graph-scope` | `layer` |\n| `--te-rng-tracker` | on |\n"
            "| `--no-check-for-nan-in-loss-and-grad` | off |\n")
    cfg = _config(text)
    assert cfg.get("model.cuda_graph_impl") == "local"
    assert cfg.get("model.inference_cuda_graph_scope") == "layer"
    assert cfg.get("rng.te_rng_tracker") is True
    assert not cfg.has("rerun_state_machine.check_for_nan_in_loss")


def test_lettered_bold_leads_are_options_in_any_language():
    text = ("Dos salidas:\n\n**A. Recomputación selectiva:**\n\n```python\n"
            "cfg.model.recompute_granularity = \"selective\"\ncfg.model.cuda_graph_impl = \"transformer_engine\"\n```\n\n"
            "**B. Iteración completa:** `cuda_graph_impl=\"full_iteration\"` con `cuda_graph_modules=[]`.\n")
    ex = extract_config(text).select("current")
    assert ex.config.get("model.cuda_graph_impl") == "transformer_engine"
    assert any(alt.get("model.cuda_graph_impl") == "full_iteration" for alt in ex.alternatives)


def test_a_fix_that_changes_only_recompute_is_not_charged_for_the_stated_graph_setup():
    """recompute-full-with-te states TE graphs without the RNG tracker; a setup that already runs
    graphs has what every impl needs, so an answer that switches to selective recompute is not charged
    for it. An answer that switches the tracker off is."""
    def validates(answer: str) -> dict:
        return checks_of(score_one("recompute-full-with-te", answer), "validates")[0]

    keep = ("Full recompute re-runs whole layers, which a scoped graph cannot contain. Keep your TE graphs and "
            "go selective:\n\n```python\ncfg.model.recompute_granularity = \"selective\"\n"
            "cfg.model.recompute_modules = [\"layernorm\"]\ncfg.model.recompute_method = None\n"
            "cfg.model.recompute_num_layers = None\ncfg.model.cuda_graph_impl = \"transformer_engine\"\n"
            "cfg.model.cuda_graph_modules = [\"attn\"]\n```\n")
    assert validates(keep)["score"] == 1.0
    tracker_off = keep.replace("```\n", "cfg.model.use_te_rng_tracker = False\ncfg.rng.te_rng_tracker = False\n```\n")
    assert validates(tracker_off)["score"] == 0.0  # the answer sets the error's keys: it is the answer's


def test_concepts_in_prose_of_another_language_get_half_credit_with_the_reason():
    from skill_tools.evaluation.answer_context import prose_language

    spanish = ("Con MoE sin descarte de tokens no se puede capturar la capa MoE completa: el número de tokens por "
               "experto cambia en cada paso y el despachador hace sincronizaciones entre el dispositivo y el host, "
               "que rompen la captura del grafo. Capture solo el enrutador y el preprocesado.")
    assert prose_language(spanish) == "other"
    assert prose_language("Capture only the router; the token count per expert changes every step.") == "en"
    assert prose_language("```python\ncfg.model.cuda_graph_impl = 'local'\n```\n") == "en"
    japanese = "ドロップレスMoEではMoE層全体をキャプチャできません。エキスパートごとのトークン数が毎ステップ変わるためです。"
    assert prose_language(japanese) == "other"
    answer = spanish + ("\n\n```python\ncfg.model.cuda_graph_impl = \"transformer_engine\"\n"
                        "cfg.model.cuda_graph_modules = [\"moe_router\", \"moe_preprocess\"]\n"
                        "cfg.model.use_te_rng_tracker = True\ncfg.rng.te_rng_tracker = True\n```\n")
    concepts = checks_of(score_one("moe-dropless-bringup", answer), "concept")
    unread = [c for c in concepts if c["score"] == 0.5]
    assert unread and all("not in English" in c["explanation"] for c in unread)


def test_a_module_list_edited_in_code_keeps_the_users_stated_te_graphs():
    """moe-recompute-router-conflict: the user runs TE graphs on attn, moe_router, moe_preprocess. An
    edit that drops moe_router but keeps moe_preprocess is judged with TE graphs (MCore refuses
    moe_preprocess without moe_router), not as if graphs were off."""
    from skill_tools.evaluation.setup import task_setup

    assert task_setup(bundled_tasks().tasks["moe-recompute-router-conflict"].data).graph_impl == "transformer_engine"

    def checks(modules: str) -> dict:
        answer = ("Recomputing `moe` would re-run the graphed router. Take the router out of the graph list:\n\n"
                  f"```python\ncfg.model.recompute_modules = [\"moe\", \"layernorm\"]\ncfg.model.cuda_graph_modules = {modules}\n```\n")
        return {c["type"]: c for b in score_one("moe-recompute-router-conflict", answer)["behaviors"] for c in b["checks"]}

    kept_preprocess = checks('["attn", "moe_preprocess"]')
    assert kept_preprocess["validates"]["score"] == 0.0 and kept_preprocess["validates"]["fatal"]
    assert checks('["attn"]')["graph"]["score"] == 1.0


def test_a_bring_up_question_asking_for_te_graphs_states_no_running_impl():
    from skill_tools.evaluation.setup import task_setup

    assert task_setup(bundled_tasks().tasks["dense-bringup-legacy-016"].data).graph_impl is None


def test_a_sentence_that_vouches_for_another_value_is_still_advice():
    text = ("```yaml\nmodel:\n  cuda_graph_impl: local\n  inference_cuda_graph_scope: block\n```\n\n"
            "`cuda_graph_impl=transformer_engine` works for decode too, if you prefer TE.\n")
    ex = extract_config(text)
    p = [b for b in ex.blocks if b.origin == "inline"]
    assert p and p[0].why  # vouched for: not a bare mention the written config outranks
