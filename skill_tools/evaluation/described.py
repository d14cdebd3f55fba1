"""Words that make a setting a description, not advice: what a library enforces, what another
frontend spells, what a stock recipe already writes, what a graph module needs. :mod:`polarity`
marks a setting they introduce as described (kept apart from what the answer asks for).
"""

from __future__ import annotations

import re

#: "The TE helper enforces `NCCL_GRAPH_REGISTER=0`": a library's check, described.
_DESCRIBES = re.compile(r"\b(?:enforces|asserts|insists on|checks for|refuses|rejects|ships(?: with)?|comes with|"
                        r"defaults to|already (?:has|sets|uses)|only (?:exemption|exception) (?:is|being)|"
                        # a consequence held against a choice: "(full iteration) would also force the NaN checks off"
                        r"(?:would|will|'d|'ll)\s+(?:also\s+|then\s+)?force\s+(?:you\s+to\s+(?:turn|switch|set)\s+)?(?:(?:the|both|all|your)\s+)*|"
                        # the user's own setup restated: "Your config, `x=True`, `y=4`, … stops at validation"
                        r"\byour\s+(?:current\s+|existing\s+|own\s+)?(?:config(?:uration)?|setup|settings|yaml|launch)\s*[,:(—–]\s*"
                        r"(?:`[^`]*`\s*,?\s*)*|"
                        # advice reported from others: "older guides telling you to add `x`"
                        r"\b(?:guides?|docs|posts?|tutorials?|blogs?|threads?|answers|people|folks|forums?)\s+(?:\w+\s+){0,2}?"
                        r"(?:tell(?:s|ing)?\s+you\s+to|say(?:s|ing)?\s+to|suggest(?:s|ing)?|recommend(?:s|ing)?|"
                        r"advis(?:e|es|ing)\s+(?:you\s+)?to)\s+(?:add(?:ing)?|set(?:ting)?|us(?:e|ing)|pass(?:ing)?|enabl(?:e|ing))?|"
                        # another frontend's spelling of the same setting: "The Megatron-LM equivalent is `--x`"
                        r"(?:megatron-lm|bridge|nemo|cli|command-line|yaml|hydra|python)(?:'s)?\s+(?:equivalent|spelling|counterpart)"
                        r"(?:\s+(?:flag|key|override))?\s+(?:is|would be|reads)\s*:?|"
                        # what a third party writes: "Stock recipes set `x`", "the base recipe (…) sets `x`", "… recomputes layers (`x`)"
                        r"(?<!\w)(?<!\bin )(?<!\bfor )(?<!\bto )(?<!\bon )(?<!\bof )(?<!\bmake )(?<!\bhave )(?<!\blet )"
                        r"(?:(?:stock|bridge|nvidia|upstream|megatron-lm|the|these|those|their|your|our|my)\s+)+(?:[\w.-]+\s+){0,4}"
                        r"(?:recipes?|scripts?|examples?|config|yaml)"
                        r"(?:\s*\([^()]{0,40}\))?\s+(?:already\s+|also\s+)?(?:set|sets|write|writes|ship|ships|use|uses|"
                        r"(?!needs|requires|wants|expects|lacks|misses|gets)[a-z]+s(?:\s+[\w-]+){0,4}\s*\())"
                        r"\s*(?:that\s+)?[`'\"]?$", re.I)
#: "`moe` needs drop-and-pad: `moe_expert_capacity_factor` set and `moe_pad_expert_input_to_capacity=True`":
#: the condition a graph module needs, described.
_MODULE_NEEDS = re.compile(r"[`'\"](?:attn|mlp|moe|moe_router|moe_preprocess|mamba|full_iteration)[`'\"](?:\s+(?:scope|module|graph))?"
                           r"\s+(?:needs|requires|only works with|is only (?:for|supported with))\b", re.I)

#: "because with X the only accepted …": X names the case a reason is about, it is not advice.
_CAUSE = re.compile(r"\b(?:because|since)\s+(?:with|under|using)\s*[`'\"]?$|"  # and a diagnosis' label: "**Cause:** `x` with …"
                    r"^[\W_]*(?:the\s+)?(?:root[\s-]+)?(?:cause|culprit|diagnosis|problem|symptom|trigger)[\W_]*:[^.;:!?\n—]{0,160}$", re.I)
#: "If your model *is* drop-and-pad — `x` set and `y=True` — then …": a setting inside the condition of an
#: if-clause that states what the user's setup already is, before its consequent: the case, not advice.
_IF_STATE = re.compile(r"^\W*(?:and\s+|but\s+)?(?:if|when)\s+(?:your\s+[\w-]+|you(?:'re|\s+are)?(?:\s+already)?|the\s+(?:model|run|moe|recipe|config))"
                       r"\s+[*_]*(?:is|are|has|have|was|already|runs?|uses?|trains?)\b[*_]*[^,;:?!()]*$", re.I)
#: "`moe_preprocess` is refused if you set `x=True`": the case a failure happens in, not advice
#: ("fails if you don't set `x`" asks for x, and is left alone).
_FAILS_IF = re.compile(r"\b(?:is\s+(?:refused|rejected|not\s+(?:allowed|supported|permitted))|fails?|raises?|asserts?|"
                       r"errors?\s+out|crash(?:es)?|breaks?|hangs?|deadlocks?|(?:will|would)\s+(?:fail|break|hang|assert))\b"
                       r"[^.;:!?]{0,80}?\b(?:if|when|whenever|once|as\s+soon\s+as)\s+(?:you\s+)?(?:also\s+)?"
                       r"(?:(?:set|sets|use|uses|enable|enables|turn\s+on|pass|add|have|keep)\b)?"
                       r"(?![^.;:!?]*\b(?:not|don'?t|never)\b)[^.;:!?,]{0,120}$", re.I)
#: "Only keep `x` in Bridge for the full-iteration spelling": what a restriction is about, not advice for the
#: user's case (its two halves: before the setting and after it). "Only set `x` when …" asks for x in that case.
_ONLY_FOR = (re.compile(r"\bonly\s+(?:keep|use|set|enable)\s*[`'\"]?$", re.I), re.compile(r"^[^.;:!?]{0,80}?\bfor\b", re.I))
#: A plain-text title set between rules: "--- recipe 1 (full iteration) -----" (a heading, level 1).
RULED_TITLE = re.compile(r"^\s{0,3}[-=]{3,}\s+([A-Za-z][^\n]{0,160}?)\s[-=]{3,}\s*$")
#: "only valid with capacity factor + `x=True`": the settings a restriction needs, named, not advised.
_ONLY_VALID = re.compile(r"\bonly\s+(?:valid|allowed|supported|possible|legal|accepted)\s+(?:with|when|if|under)\b[^.;!?]{0,120}$", re.I)
#: "Either drop offloading …, or keep offloading with `x`": the second side of a choice, an option.
_EITHER_OR = re.compile(r"\beither\b[^.;:!?]{0,240}?[,\s]\s*or\s+(?:[\w-]+\s+){0,6}(?:with\s+|to\s+|use\s+|set\s+)?[`'\"]?$", re.I)
#: "- **drop-and-pad** (`x` set): …": a list item's label, its aside defining the case the item is about.
_CASE_LABEL = re.compile(r"(?:^|\n)\s*(?:[-*+•]|\d{1,2}[.)])\s+(?:\*\*|__)?[^()\n*_`]{1,40}(?:\*\*|__)?\s*$")
#: "`moe` is refused unless the MoE is drop-and-pad: `x` set and `y=True`": the list after the colon
#: is what the condition means (an "unless you set: …" is an instruction, and stays one).
_UNLESS_LIST = re.compile(r"\bunless\s+(?!you\b|we\b|i\b)[^:;.!?]{1,80}:\s*[^;.!?]{0,160}$", re.I)
#: "... is only for drop-and-pad MoE (", "only supported with X (": the aside spells out a condition.
_CONDITION = re.compile(r"\bonly\s+(?:(?:valid|legal|supported|works|allowed|accepted|permitted|available|possible|meant|exists?|appl(?:y|ies)|makes\s+sense)\s+|"
                        r"(?:allows?|permits?|accepts?|supports?|lets?)\s+[^().;]{1,40}?\s+)?(?:for|with|in|on|when|if(?!\s+you\s+(?:want|wish|need|prefer|would|'d)))\b"
                        r"[^().;]{0,60}$", re.I)


#: "With `use_te_rng_tracker=False`, Bridge's provider fails with …": the case a failure is about.
_WITH_FAILS = re.compile(r"^\W*with\s*[`'\"]?$", re.I), \
    re.compile(r"^(?:`[^`]*`|[^.;`]){0,160}?\b(?:fails?|raises?|asserts?|errors? out|crash(?:es)?|is refused|is rejected)\b", re.I)


#: What to search for, not what to set: "grep your launch scripts for `--cuda-graph-scope` and
#: `--enable-cuda-graph`", "look for `x` in the log".
_SEARCHED = re.compile(r"\b(?:grep|search|scan|look|check)(?:\s+\w+){0,5}?\s+for\s+(?:[`'\"][^`'\"]*[`'\"](?:,?\s*(?:and|or)?\s*))*[`'\"]?$", re.I)

#: A third party's setup named, then spelled out in an aside: "`qwen3_…_config` ships with full
#: recompute (`recompute_granularity="full"`, …)".
_SHIPS_WITH = re.compile(r"\b(?:ships with|comes with|defaults to|is configured with|already (?:has|sets|uses)|"
                         r"(?:recipes?|scripts?) (?:set|sets|use|uses))(?:\s+[\w*-]+){0,4}\s*$", re.I)
#: The same third-party statement in the languages answers are written in: "Las recetas Llama de
#: Bridge ponen `x`", "les recettes … mettent `x`", "die Rezepte setzen `x`", "as receitas definem `x`".
_RECIPES_SET = re.compile(r"\b(?:recetas?|recettes?|rezepte?|receitas?)\b(?:\s+[\w.-]+){0,4}\s+"
                          r"(?:ponen|pone|usan|fijan|traen|activan|mettent|met|fixent|utilisent|activent|setzen|"
                          r"verwenden|aktivieren|definem|usam|colocam|ativam)\s*[`'\"]?$", re.I)

#: One side of an A/B ("`impl=none` vs your current `transformer_engine`"), named in a line that compares.
_VERSUS = re.compile(r"\s*(?:vs\.?|versus)\s", re.I)
_COMPARES = re.compile(r"\b(?:a/b|compare|comparison|baseline)\b", re.I)
#: A short phrase in scare quotes ("slowly wrong", “not captured”): what something is called.
_SCARE_QUOTED = re.compile(r"[\"“](?=[A-Za-z]+[ -])[A-Za-z]+(?:[ -][A-Za-z]+){1,3}[\"”]")


#: A recommending verb before an aside: "set it (`x=1`) and …" asks for x; "Offloading (`x=1`) is …" does not.
_ASKS = re.compile(r"\b(?:set|sets|use|enable|add|keep|turn|switch|try|put|pass|change|flip|pin|apply)\b", re.I)
#: What follows an aside that names the sentence's subject: its predicate ("is not supported", "makes …").
_PREDICATE = re.compile(r"^\s*(?:is|are|was|were|makes?|needs?|requires?|means?|breaks?|causes?|turns?|works?|"
                        r"cannot|can't|won't|doesn't|does not|isn't|aren't|has|have|only|alone)\b", re.I)


def defines_subject(aside: str, after: str) -> bool:
    """A setting in an aside that defines the sentence's subject: "Activation CPU offloading
    (`cpu_offloading=True`) is not supported with TE graphs", "Only drop-and-pad (`x` + `y`) makes
    the block static". The aside follows a noun phrase no verb asks for, and the sentence goes on
    with that subject's predicate."""
    close = after.find(")")
    aside = re.split(r"[.!?:]\s+", aside)[-1]  # the aside's own sentence
    return close >= 0 and "(" not in after[:close] and not _ASKS.search(aside) and \
        bool(_PREDICATE.match(after[close + 1:close + 60]))


#: "you can use `[moe]` alone instead": a modal offer, then "instead" after the setting: an option, not the fix.
_MODAL_USE = re.compile(r"\b(?:you\s+(?:can|could|may|might)|(?:can|could|may|might)\s+you)\s+(?:also\s+|just\s+)?"
                        r"(?:use|set|pick|go with|switch to)\s*[`'\"*]*$", re.I)  # ("Only if …, can you use X instead")
_INSTEAD_AFTER = re.compile(r"^[\s`'\"*,]*(?:[\w-]+[\s*]+){0,2}?instead\b(?!\s+of)", re.I)

#: In a block's introduction, a prohibition with its own action, a sentence of its own ("Don't hardcode."), or a
#: "Don't let X happen:" whose colon introduces how: neither rejects the block.
_OWN_PROHIBITION = re.compile(r"(?:^|(?<=[.;!?]\s))\W*(?:don'?t|do not|never|avoid)\s+(?!(?:use|run|copy|do|try|write|apply|paste|follow|"
                              r"this|these|that|it|the following)\b)[a-z][\w-]*[^.;:!?]*[.;!?](?=\s|$)|"
                              r"^\W*(?:don'?t|do not|never)\s+(?:let|allow)\b[^.;:!?]*(?=:)", re.I)  # "Don't let X happen:" then how
