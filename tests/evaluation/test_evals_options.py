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
