"""How an answer lays out choices and dismisses settings: labelled options, "two good options",
rejections in words, several dicts of overrides, settings written as the concept a check asks for.
The answers are written for these tests, in styles of their own."""

from __future__ import annotations

from skill_tools.config.era import era_for
from skill_tools.evaluation.answer_context import AnswerContext
from skill_tools.evaluation.extract import extract_config
from skill_tools.evaluation.polarity import ALTERNATIVE, REJECTED, LinePolarity
from skill_tools.evaluation.rubric import check_concept

F = "```"


def _ctx(text: str) -> AnswerContext:
    return AnswerContext(text, extract_config(text), era_for("0.19.2"))


def test_labelled_options_second_one_is_an_alternative():
    text = (f"There are a couple of reasonable ways to do this.\n\n### Option 1: per-layer TE graphs\n\n{F}yaml\n"
            "model:\n  cuda_graph_impl: transformer_engine\n  cuda_graph_modules: [mlp]\n"
            f"{F}\n\n### Option 2: capture everything\n\n{F}yaml\nmodel:\n  cuda_graph_impl: full_iteration\n"
            f"  cuda_graph_modules: []\n{F}\n")
    ex = extract_config(text)
    assert ex.config.get("model.cuda_graph_impl") == "transformer_engine"
    assert ex.config.get("model.cuda_graph_modules") == ["mlp"]
    assert [a.get("model.cuda_graph_impl") for a in ex.alternatives] == ["full_iteration"]


def test_bold_option_leads_after_an_adjective_hedge_are_not_merged():
    text = ("Two reasonable options here.\n\n__Plan A: keep recompute off and graph attention__\n\n"
            f"{F}python\ncfg.model.cuda_graph_impl = 'transformer_engine'\ncfg.model.cuda_graph_modules = ['attn']\n{F}\n\n"
            f"__Plan B: whole step__\n\n{F}python\ncfg.model.cuda_graph_impl = 'full_iteration'\n{F}\n")
    ex = extract_config(text)
    assert ex.config.get("model.cuda_graph_impl") == "transformer_engine"
    assert any(a.get("model.cuda_graph_impl") == "full_iteration" for a in ex.alternatives)


def test_a_heading_that_is_not_an_option_ends_the_option_list():
    text = (f"## Option A\n\n{F}bash\n--cuda-graph-impl transformer_engine\n{F}\n\n## Option B\n\n"
            f"{F}bash\n--cuda-graph-impl full_iteration\n{F}\n\n## Environment\n\n{F}bash\nexport NCCL_GRAPH_REGISTER=0\n{F}\n")
    ex = extract_config(text)
    assert ex.config.get("model.cuda_graph_impl") == "transformer_engine"
    assert ex.config.env.get("NCCL_GRAPH_REGISTER") == "0"


def test_alternatively_in_a_sentence_does_not_open_an_option_for_the_rest():
    text = ("Alternatively you could wait for the next release.\n\nFor now the fix is short.\n\n"
            "Set this in the recipe:\n\n"
            f"{F}python\ncfg.model.cuda_graph_impl = 'transformer_engine'\n{F}\n")
    assert extract_config(text).config.get("model.cuda_graph_impl") == "transformer_engine"


def test_rejection_and_dismissal_in_words():
    line = "We reject `cuda_graph_modules=['moe']` here; it needs drop-and-pad."
    at = line.index("cuda_graph_modules")
    assert LinePolarity(line).at(at, at + 10).role == REJECTED
    line = "`NCCL_GRAPH_REGISTER=0` merely masks the problem, so fix the allocator instead."
    assert LinePolarity(line).at(1, 22).role == REJECTED
    line = "Pass `NCCL_GRAPH_REGISTER=0` so NCCL does not register graph buffers."
    assert LinePolarity(line).at(6, 27).role not in (REJECTED, ALTERNATIVE)


def test_several_dicts_of_overrides_are_all_read_in_order():
    text = ('first = {"model.cuda_graph_impl": "local", "model.cuda_graph_warmup_steps": 2}\n'
            'second = {"model.cuda_graph_impl": "transformer_engine"}\n')
    cfg = extract_config(text).config
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine" and cfg.get("model.cuda_graph_warmup_steps") == 2


def test_a_concept_that_is_a_setting_is_met_by_the_setting_in_any_spelling():
    spec = {"name": "full iteration", "any": ['cuda_graph_impl="full_iteration"']}
    yaml_answer = "model:\n  cuda_graph_impl: full_iteration\n  cuda_graph_modules: []\n"
    assert check_concept(_ctx(yaml_answer), spec).score == 1.0
    two_dicts = ('a = {"model.cuda_graph_impl": "full_iteration"}\n'
                 'b = {"model.cuda_graph_impl": "transformer_engine"}\n')
    assert check_concept(_ctx(two_dicts), spec).score == 1.0
    rejected = f"Before:\n\n{F}yaml\nmodel:\n  cuda_graph_impl: full_iteration\n{F}\n"
    assert check_concept(_ctx(rejected), spec).score == 0.0


def test_a_setting_in_an_aside_does_not_replace_the_config_block():
    text = (f"Use TE graphs for the MLP:\n\n{F}python\ncfg.model.cuda_graph_impl = 'transformer_engine'\n"
            f"cfg.model.cuda_graph_modules = ['mlp']\n{F}\n\n"
            "(For comparison, the whole-step variant is `cuda_graph_impl=\"full_iteration\"` on 0.18+.)\n")
    cfg = extract_config(text, era="current").config
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine" and cfg.get("model.cuda_graph_modules") == ["mlp"]


def _score(task_id: str, text: str):
    from pathlib import Path

    from skill_tools.evaluation.score import Scorer
    from skill_tools.evaluation.tasks import AnswerRecord, load_tasks

    root = Path(__file__).resolve().parents[2]
    scorer = Scorer(load_tasks(root / "evals" / "evals.json"))
    return scorer.score(AnswerRecord(task_id, "with_skill", "test", text, 1))


_MOE_MAIN = (f"{F}python\ncfg.model.cuda_graph_impl = 'transformer_engine'\n"
             "cfg.model.cuda_graph_modules = ['moe_router', 'moe_preprocess']\ncfg.model.cuda_graph_warmup_steps = 3\n"
             f"cfg.model.use_te_rng_tracker = True\ncfg.rng.te_rng_tracker = True\n{F}\n")


def test_a_later_phase_that_the_validator_refuses_fails_the_answer():
    """A roadmap's later phase is advice the user would follow: judged like the recommendation."""
    lead = ("Dropless routing has dynamic per-expert token counts (host syncs), so keep the `moe` "
            "module out of the graph; moe and moe_router are mutually exclusive anyway.\n\n**Phase 1 — today**\n\n")
    good = _score("moe-dropless-bringup", lead + _MOE_MAIN + "\n**Phase 2 — later**\n\nAlso try "
                  "`cfg.model.cuda_graph_modules = [\"attn\", \"moe_router\", \"moe_preprocess\"]` and A/B it.\n")
    bad = _score("moe-dropless-bringup", lead + _MOE_MAIN + "\n**Phase 2 — later**\n\nSwitch to "
                 "`cfg.model.cuda_graph_impl = \"full_iteration\"` for the whole step.\n")
    assert good.passed, good.to_dict()["fatal"]
    assert not bad.passed
    assert any("options offered" in f for f in bad.to_dict()["fatal"])
    assert bad.extraction.config.get("model.cuda_graph_impl") == "transformer_engine"


def test_an_option_naming_an_impl_starts_again_from_the_stated_config():
    """"Option B: keep full recompute, capture the full iteration" is judged with the user's full
    recompute, not with option A's selective recompute."""
    from skill_tools.config.model import CanonicalConfig
    from skill_tools.evaluation.alternatives import laid_over

    main = CanonicalConfig(source="a", fmt="answer")
    for k, v in {"model.cuda_graph_impl": "transformer_engine", "model.cuda_graph_modules": ["attn"],
                 "model.recompute_granularity": "selective", "rng.te_rng_tracker": True}.items():
        main.set(k, v)
    stated = CanonicalConfig(source="task", fmt="setup")
    stated.set("model.recompute_granularity", "full")
    option = CanonicalConfig(source="a", fmt="answer")
    option.set("model.cuda_graph_impl", "full_iteration")
    out = laid_over(main, option, stated)
    assert out.get("model.recompute_granularity") == "full" and not out.has("model.cuda_graph_modules")
    assert out.get("rng.te_rng_tracker") is True and out.get("model.cuda_graph_impl") == "full_iteration"
    fallback = CanonicalConfig(source="a", fmt="answer")
    fallback.set("rng.te_rng_tracker", False)
    out = laid_over(main, fallback, stated)
    assert out.get("model.cuda_graph_modules") == ["attn"] and out.get("rng.te_rng_tracker") is False


def test_a_table_whose_column_is_a_key_gives_one_value_per_row():
    text = ("| stage | `cfg.model.cuda_graph_modules` | why |\n|---|---|---|\n"
            "| first | `[\"attn\"]` | cheapest |\n| second | `[\"attn\", \"mlp\"]` | if the A/B wins |\n")
    ex = extract_config(text)
    assert ex.config.get("model.cuda_graph_modules") == ["attn"]
    assert [a.get("model.cuda_graph_modules") for a in ex.alternatives] == [["attn", "mlp"]]


def test_a_prohibition_is_recognised_in_its_other_forms():
    spec = {"name": "exclusive", "any": ["cannot combine"]}
    for said in ("`moe` and `moe_router` must never be combined.", "You can't combine moe with moe_router.",
                 "These two should not be combined in one list."):
        assert check_concept(_ctx(said), spec).score == 1.0, said
    assert check_concept(_ctx("moe and attn combine well."), spec).score == 0.0


def test_a_check_with_a_when_condition_applies_only_when_it_holds():
    from skill_tools.evaluation.rubric import run_check

    spec = {"type": "config", "keys": ["model.cpu_offloading"], "name": "no offload with graphs", "not_in": [True],
            "when": {"graphs": "on"}}
    off = _ctx(f"{F}python\ncfg.model.cpu_offloading = True\ncfg.model.cuda_graph_impl = \"none\"\n{F}\n")
    on = _ctx(f"{F}python\ncfg.model.cpu_offloading = True\ncfg.model.cuda_graph_impl = \"transformer_engine\"\n{F}\n")
    skipped = run_check(off, spec)
    assert skipped.score is None and "not applicable" in skipped.explanation
    assert run_check(on, spec).score == 0.0 and run_check(on, spec).fatal


def test_a_short_synonym_ending_in_punctuation_matches_before_a_word():
    spec = {"name": "TE restricted", "any": ["TE/"], "negated_ok": True}
    assert check_concept(_ctx("TE/full_iteration allow only scope none for decode."), spec).score == 1.0


def test_a_key_under_a_section_that_lacks_the_field_is_not_aliased():
    ex = extract_config("```yaml\ntrain:\n  check_for_nan_in_loss: false\ncomm_overlap:\n"
                        "  overlap_param_gather_with_optimizer_step: false\n```\n")
    assert not ex.config.has("rerun_state_machine.check_for_nan_in_loss")
    assert ex.config.get("optimizer.overlap_param_gather_with_optimizer_step") is False


def test_a_required_concept_that_is_missing_is_fatal():
    spec = {"name": "whole-step impl", "any": ['cuda_graph_impl="full_iteration"'], "required": True}
    missing = check_concept(_ctx("Rename the scope key to cuda_graph_modules and keep transformer_engine."), spec)
    assert missing.score == 0.0 and missing.fatal and missing.explanation.startswith("required: ")
    assert not check_concept(_ctx("Rename the scope key."), {**spec, "required": False}).fatal


def test_numbered_bold_options_after_a_hedge_and_a_flag_in_quotes():
    text = ("You have two workable setups.\n\n**1. Graph attention only.**\n\n"
            f"{F}python\ncfg.model.cuda_graph_impl = \"transformer_engine\"\ncfg.model.cuda_graph_modules = [\"attn\"]\n{F}\n\n"
            "**2. Whole step.** `cuda_graph_impl=\"full_iteration\"` with the NaN checks off.\n\n"
            "The message means \"--cuda-graph-impl transformer_engine\".\n")
    ex = extract_config(text, era="current")
    assert ex.config.get("model.cuda_graph_impl") == "transformer_engine"
    assert any(a.get("model.cuda_graph_impl") == "full_iteration" for a in ex.alternatives)


def test_both_work_lists_options_each_judged_on_its_own():
    """"Both work for decode:" then one bullet per impl: each bullet is an option the user may pick."""
    text = ("**Which impl?** Both work for decode:\n\n"
            "- `cuda_graph_impl=\"local\"` with `inference_cuda_graph_scope=\"block\"`.\n"
            "- `cuda_graph_impl=\"transformer_engine\"` with `inference_cuda_graph_scope=\"layer\"`.\n")
    ex = extract_config(text)
    impls = {a.values.get("model.cuda_graph_impl") for a in ex.alternatives} | {ex.config.values.get("model.cuda_graph_impl")}
    assert "transformer_engine" in {a.values.get("model.cuda_graph_impl") for a in ex.alternatives}
    assert "local" in impls


def test_a_prohibition_with_its_own_action_does_not_reject_the_block():
    """"Don't hardcode." before a block is about hardcoding; "Don't use this:" is about the block."""
    from skill_tools.evaluation.polarity import intro_polarity

    assert intro_polarity("let autotune search both. don't hardcode.").role == "suggested"
    assert intro_polarity("Do not hardcode the block size. Use:").role == "suggested"
    assert intro_polarity("Don't use this:").role == REJECTED
    assert intro_polarity("Never do this.").role == REJECTED


def test_switch_it_to_asks_for_the_setting():
    """"switch it to `x`" asks for x, so a written block's other value does not silently outrank it."""
    text = "```yaml\nmodel:\n  cuda_graph_impl: none\n```\n\nFor the TE run, switch it to `cuda_graph_impl: local` instead.\n"
    inline = [b for b in extract_config(text).blocks if b.origin == "inline"]
    assert inline and inline[0].why and "switch it to" in inline[0].why


def test_a_multi_document_yaml_is_one_option_per_document():
    text = ("# Pick ONE of the documents below.\nmodel:\n  cuda_graph_impl: transformer_engine\n"
            "  cuda_graph_modules: [attn]\n---\n# Option B\nmodel:\n  cuda_graph_impl: full_iteration\n")
    ex = extract_config(text)
    assert ex.config.values.get("model.cuda_graph_impl") == "transformer_engine"
    assert [a.values.get("model.cuda_graph_impl") for a in ex.alternatives] == ["full_iteration"]


def test_an_option_that_meets_a_checks_condition_is_judged_by_it():
    """Team B's Megatron-FSDP document turns graph mode on and keeps the all-gather at param-sync
    start: the task's check for that case applies to the option, not only to the recommendation."""
    from one_answer import score_one

    text = ("The param all-gather is launched outside the captured iteration and awaited inside it.\n\n"
            "```yaml\noptimizer:\n  overlap_param_gather_with_optimizer_step: false\nmodel:\n"
            "  cuda_graph_impl: full_iteration\n---\nddp:\n  use_megatron_fsdp: true\n"
            "  megatron_fsdp_cuda_graph_mode: true\n  fsdp_all_gather_in_start_param_sync: {value}\n"
            "model:\n  cuda_graph_impl: full_iteration\n```\n")
    bad = score_one("diagnose-stream-capture-isolation", text.format(value="true"))
    good = score_one("diagnose-stream-capture-isolation", text.format(value="false"))
    assert any("fsdp_all_gather_in_start_param_sync" in f for f in bad["fatal"]), bad["fatal"]
    assert not any("fsdp_all_gather_in_start_param_sync" in f for f in good["fatal"]), good["fatal"]


def test_a_setting_that_defines_the_subject_in_an_aside_is_no_advice():
    text = ("Activation CPU offloading (cpu_offloading=True / cpu_offloading_num_layers>0) is not supported "
            "with TE CUDA graphs.\n")
    assert "model.cpu_offloading" not in extract_config(text).config.values
    asked = "Set it (`cpu_offloading=True`) and keep graphs off.\n"
    assert extract_config(asked).config.values.get("model.cpu_offloading") is True


def test_a_commented_config_offered_as_another_way_is_an_option():
    text = ("model:\n  cuda_graph_impl: transformer_engine\n  cuda_graph_modules: [moe_router, moe_preprocess]\n"
            "# Lower-memory alternative: the local manager is lighter, so in Bridge you can instead use:\n#\n"
            "#   model:\n#     cuda_graph_impl: local\n#     cuda_graph_modules: [moe_router]\n")
    ex = extract_config(text)
    assert ex.config.values.get("model.cuda_graph_impl") == "transformer_engine"
    assert "local" in [a.values.get("model.cuda_graph_impl") for a in ex.alternatives]


def test_the_aside_is_judged_by_its_own_sentence():
    text = ("Dropless token counts change every step. Only drop-and-pad (`moe_expert_capacity_factor` set + "
            "`moe_pad_expert_input_to_capacity: true`) makes the whole MoE block static.\n")
    assert "model.moe_pad_expert_input_to_capacity" not in extract_config(text).config.values


def test_a_setting_said_to_fail_the_same_way_is_rejected():
    from skill_tools.evaluation.polarity import LinePolarity

    line = "  ``--cuda-graph-impl transformer_engine`` would fail the same way in your loop, because"
    i = line.find("--cuda")
    assert LinePolarity(line).at(i, i + len("--cuda-graph-impl transformer_engine")).role == REJECTED


def test_a_later_block_for_a_case_is_an_option_not_an_override():
    text = ("Graph the whole layer:\n```python\ncfg.model.cuda_graph_modules = []\n```\n\n"
            "If EP=8 leaves you short on HBM, narrow to the static pre-dispatch parts:\n"
            "```python\ncfg.model.cuda_graph_modules = [\"attn\", \"moe_router\", \"moe_preprocess\"]\n```\n")
    ex = extract_config(text)
    assert ex.config.values.get("model.cuda_graph_modules") == []
    assert [a.values.get("model.cuda_graph_modules") for a in ex.alternatives] == [["attn", "moe_router", "moe_preprocess"]]
    only = extract_config("If you are on 0.19, set:\n```python\ncfg.model.cuda_graph_modules = [\"attn\"]\n```\n")
    assert only.config.values.get("model.cuda_graph_modules") == ["attn"]
