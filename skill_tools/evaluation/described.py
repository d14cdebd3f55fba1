"""Words that make a setting a description, not advice: what a library enforces, what another
frontend spells, what a stock recipe already writes, what a graph module needs. :mod:`polarity`
marks a setting they introduce as described (kept apart from what the answer asks for).
"""

from __future__ import annotations

import re

#: "The TE helper enforces `NCCL_GRAPH_REGISTER=0`": a library's check, described.
_DESCRIBES = re.compile(r"\b(?:enforces|asserts|insists on|checks for|refuses|rejects|ships(?: with)?|comes with|"
                        r"defaults to|already (?:has|sets|uses)|"
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
