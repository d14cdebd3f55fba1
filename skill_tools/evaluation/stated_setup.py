"""The settings a task's question states as the user's own: an answer that writes them back quotes
the user's setup, it does not newly instruct it (a companion it would need is not the answer's
doing). Read from the task's stated config, from the question's words ("policy cuda_graph_impl
none"), and from a question whose user already runs full-iteration graphs, said as "I launch … with
full-iteration graphs" or as a setup listed in a statement ("64xB200 Bridge run, distributed
optimizer, full-iteration CUDA graph, …"; a quoted error message or a question asking how does not
count).
"""

from __future__ import annotations

import re
from typing import Any

from skill_tools.config.model import CanonicalConfig
from skill_tools.evaluation.config_checks import _same


def restated_keys(config: CanonicalConfig, stated: CanonicalConfig, question: str = "",
                  written: frozenset[str] = frozenset()) -> frozenset[str]:
    """Keys an answer writes with the very value the task's question states: a timeline or a quote
    of the user's setup ("your policy has `cuda_graph_impl: none`"), not a new instruction. A question
    that states one key twice ("policy cuda_graph_impl none for training, generation … cuda_graph_impl
    local") states both values: each is matched in its words, the key's name right before the value. A
    question whose user runs full-iteration graphs states their impl and scope in either era's spelling
    (a setup merely listed in the question, only where the answer does not write them in a config
    block of its own: a config written down is the answer's, companions included)."""
    def in_words(key: str, value: Any) -> bool:
        if not question or not isinstance(value, (str, int, float)) or isinstance(value, bool):
            return False
        leaf = re.escape(key.rsplit(".", 1)[-1])
        return re.search(rf"(?<![\w.]){leaf}[\s:=`'\"]{{1,4}}{re.escape(str(value))}(?![\w.])", question, re.I) is not None

    def full_iteration_run(key: str, value: Any) -> bool:  # "I launch … with full-iteration graphs", in either spelling
        return (bool(_RUNS_FULL_ITERATION.search(question)) or (key not in written and lists_full_iteration(question))) and (
            (key == "model.cuda_graph_impl" and value in ("local", "full_iteration"))
            or (key == "model.cuda_graph_scope" and value in (["full_iteration"], "full_iteration")))

    return frozenset(k for k in config.values
                     if (stated.has(k) and _same(config.get(k), stated.get(k))) or in_words(k, config.get(k))
                     or full_iteration_run(k, config.get(k)))


#: The question's user already runs full-iteration graphs ("I launch … with full-iteration graphs").
_RUNS_FULL_ITERATION = re.compile(r"\bI(?:'m| am)?\s+(?:launch|run|train|use|running|training|launching)\w*\b[^.?!]{0,160}?"
                                  r"\bwith\s+(?:the\s+)?full[- ]iteration\s+(?:CUDA[- ])?graphs?\b", re.I)


def lists_full_iteration(question: str) -> bool:
    """Whether a statement of the question lists a full-iteration graph in the user's setup."""
    unquoted = re.sub(r"'[^'\n]*'|\"[^\"\n]*\"", " ", question)  # an error message names what failed, not the setup
    return any(_SETUP_FULL_ITERATION.search(s) and "?" not in s and not _ASKS.search(s)
               for s in re.split(r"(?<=[.!?])\s+", unquoted))


#: A statement that lists the run's full-iteration graph: "… full-iteration CUDA graph, …", "my full-iteration run".
_SETUP_FULL_ITERATION = re.compile(r"\bfull[- ]iteration\s+(?:(?:CUDA[- ])?graph(?:s|\s+capture|\s+run)?|run)\b", re.I)
#: Words of a sentence that asks for graphs rather than stating the user has them.
_ASKS = re.compile(r"\b(?:how|should|could|can|want|wants|enable|turn on|switch|move|migrate|try|consider|instead)\b", re.I)
