"""Code regions of other document formats are read as fenced blocks (their settings stay one
block, with its polarity), a block hedged across eras by comment headers is read one era per
section, and one fence's sections form one offered option."""

from __future__ import annotations

import pytest

from skill_tools.evaluation.doc_fences import as_fences
from skill_tools.evaluation.era_branches import era_split
from skill_tools.evaluation.extract import extract_config

BODY = "cfg.model.cuda_graph_impl = \"transformer_engine\"\ncfg.model.cuda_graph_modules = [\"attn\"]"

MARKERS = [
    (".nf", ".fi", ""),
    (".EX", ".EE", ""),
    ("#+BEGIN_SRC python :results none", "#+END_SRC", "python"),
    ("\\begin{lstlisting}[language=Python]", "\\end{lstlisting}", ""),
    ("\\begin{minted}{python}", "\\end{minted}", "python"),
    ("{code:python}", "{code}", "python"),
    ("<syntaxhighlight lang=\"python\">", "</syntaxhighlight>", "python"),
    ("<pre>", "</pre>", ""),
    ("<code python>", "</code>", "python"),
    ("@example", "@end example", ""),
    ("{{{", "}}}", ""),
    ("[code]", "[/code]", ""),
    ("=begin code", "=end code", ""),
]


@pytest.mark.parametrize("opening,closing,lang", MARKERS, ids=[m[0] for m in MARKERS])
def test_each_formats_code_region_becomes_a_fence(opening, closing, lang):
    text = f"Use this:\n{opening}\n{BODY}\n{closing}\nThen re-run."
    out = as_fences(text)
    assert out.split("\n")[1] == "```" + lang and out.split("\n")[4] == "```"
    assert out.count("\n") == text.count("\n")  # locations keep pointing at the answer's lines
    ex = extract_config(text)
    fenced = [b for b in ex.blocks if b.origin == "fenced"]
    assert len(fenced) == 1 and fenced[0].line == 3
    assert ex.config.get("model.cuda_graph_modules") == ["attn"]


def test_rest_code_block_is_closed_on_the_blank_line_after_it():
    text = f"Set:\n\n.. code-block:: python\n\n    {BODY.replace(chr(10), chr(10) + '    ')}\n\nDone."
    out = as_fences(text).split("\n")
    assert out[2] == "```python" and out[6] == "```"
    assert extract_config(text).config.get("model.cuda_graph_impl") == "transformer_engine"


def test_markers_inside_a_markdown_fence_and_unpaired_ones_are_left_alone():
    quoted = "```org\n#+BEGIN_SRC yaml\nx: 1\n#+END_SRC\n```"
    assert as_fences(quoted) == quoted
    assert as_fences(".nf\nno closing request") == ".nf\nno closing request"


def test_a_man_pages_escapes_are_read_as_the_characters_they_print():
    text = ".TH X 7\n.SH FIX\n.B cuda_graph_impl=\\(dqtransformer_engine\\(dq\nmegatron\\-core 0.16\\(en0.17"
    out = as_fences(text)
    assert 'cuda_graph_impl="transformer_engine"' in out and "megatron-core 0.16\u20130.17" in out


HEDGED = """# megatron-core 0.18+
cfg.model.cuda_graph_impl = "full_iteration"
cfg.model.cuda_graph_modules = []

# megatron-core 0.16-0.17
cfg.model.cuda_graph_impl = "local"
cfg.model.cuda_graph_scope = ["full_iteration"]

# both eras
cfg.rerun_state_machine.check_for_nan_in_loss = False"""


def test_comment_headed_era_sections_are_split():
    parts = era_split(HEDGED, "python")
    assert [era for era, _ in parts] == ["current", "legacy", None]
    assert all(code.count("\n") == HEDGED.count("\n") for _, code in parts)
    assert era_split(HEDGED.split("\n\n# megatron-core 0.16")[0], "python") == []  # one era only: one block


def test_each_era_reads_its_own_section():
    text = f"Full-iteration graphs:\n\n```python\n{HEDGED}\n```\n"
    cur = extract_config(text, era="current").config
    assert cur.get("model.cuda_graph_impl") == "full_iteration" and not cur.has("model.cuda_graph_scope")
    assert cur.get("rerun_state_machine.check_for_nan_in_loss") is False
    old = extract_config(text, era="legacy").config
    assert old.get("model.cuda_graph_impl") == "local" and old.get("model.cuda_graph_scope") == ["full_iteration"]


def test_an_offered_fence_with_era_sections_is_one_option():
    text = ("Set `cuda_graph_impl=\"transformer_engine\"` with `cuda_graph_modules=[\"attn\"]`.\n\n"
            f"Alternatively, capture the whole iteration:\n\n```python\n{HEDGED}\n```\n")
    ex = extract_config(text, era="current")
    (option,) = ex.alternatives
    assert option.get("model.cuda_graph_impl") == "full_iteration"
    assert option.get("rerun_state_machine.check_for_nan_in_loss") is False


def test_a_flag_named_in_a_wrapped_quoted_message_takes_no_words_as_values():
    text = ('  * setting it together is an error (Megatron-LM CLI: "--cuda-graph-scope and --cuda-graph-modules cannot be\n'
            '    used together."), which is why the codemod writes the new key alone.\n')
    cfg = extract_config(text).config
    assert "cannot" not in str(cfg.get("model.cuda_graph_modules")), cfg.values


def test_what_a_stock_recipe_does_spelled_out_in_a_parenthesis_is_described():
    text = ('Recompute: the stock recipe recomputes whole layers (`recompute_granularity="full"`). Switch to '
            'selective recompute with modules that don\'t cover the router, e.g. `recompute_granularity="selective"`, '
            '`recompute_modules=["moe_act", "layernorm"]`.\n')
    cfg = extract_config(text).config
    assert cfg.get("model.recompute_granularity") == "selective"
    assert cfg.get("model.recompute_modules") == ["moe_act", "layernorm"]
    assert "model.recompute_granularity" not in extract_config("Your config needs (`recompute_granularity=\"full\"`).").counter_config.values


def test_as_above_is_a_reference_not_a_value():
    assert not extract_config("2. `moe_router` + `moe_preprocess` as above, then A/B.\n").config.has("model.moe_preprocess")


def test_what_a_graph_module_needs_is_described_not_asked_for():
    text = ("Start with `cuda_graph_modules=[\"moe_router\", \"moe_preprocess\"]`.\n"
            "3. `moe` needs drop-and-pad: `moe_expert_capacity_factor` set **and** "
            "`moe_pad_expert_input_to_capacity=True`; otherwise capture is refused.\n")
    assert not extract_config(text).config.has("model.moe_pad_expert_input_to_capacity")
    advice = "Set `moe_pad_expert_input_to_capacity=True` with a capacity factor.\n"
    assert extract_config(advice).config.get("model.moe_pad_expert_input_to_capacity") is True


def test_versus_ends_a_claims_clause():
    from skill_tools.evaluation.claims import _CLAUSE_END

    assert _CLAUSE_END.search("qwen3.5 gdn vs nemotron h mamba")
