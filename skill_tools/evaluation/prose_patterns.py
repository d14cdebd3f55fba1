"""The patterns by which settings are found in prose: ``key=value``, "set key to value", "key should
be value", ``key: value`` pairs and list items, flags named in a sentence, "TP=8", and the words
that are never a value. :mod:`locate` applies them line by line, each match judged by its clause.
"""

from __future__ import annotations

import re

from skill_tools.config.model import SECTIONS

_PROSE_KV = re.compile(  # the first of a quoted override string counts too: `OVR := "model.x=1 …"`
    r"(?:(?<![\w.`'\"-])|(?<==\")|(?<== \")|(?<=(?<![\w'])'))((?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*|[a-z][a-z0-9]*_[a-z0-9_]+|[A-Z][A-Z0-9]*_[A-Z0-9_]+)"
    r"\s*=\s*(\"[^\"\n]*\"|'[^'\n]*'|\[[^\]\n]*\]|[A-Za-z0-9_.:+,-]*[A-Za-z0-9_\]])")  # ASCII: "True-ஐ" is True + a case ending
#: "set `model.cuda_graph_impl` to `full_iteration`", "cuda_graph_warmup_steps to 3": a key, then to/as, then a value.
_PROSE_TO = re.compile(
    r"[`']?((?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*|[a-z][a-z0-9]*_[a-z0-9_]+|[A-Z][A-Z0-9]*_[A-Z0-9_]+)[`']?"  # `key` or 'key'
    r"\s+(?:(?:(?:is\s+|are\s+)?set\s+|(?:should|must|needs? to|has to) be\s+(?:set\s+)?)?(?:to\s+|as\s+|(?<=be\s))`?(\"[^\"\n]*\"|'[^'\n]*'|\[[^\]\n]*\]|[\w.:+,-]*[\w\]])|at\s+`?(\d+(?:\.\d+)?))`?")
#: `cuda_graph_impl "transformer_engine"`: a key, then a double-quoted value.
_PROSE_QUOTED = re.compile(
    r"(?<![\w.])`?((?:[A-Za-z_]\w*\.)*[a-z][a-z0-9]*_[a-z0-9_]+)`?\s+\"([\w.:+-]{1,60})\"")
#: A flag's values in a sentence: up to four tokens, none an English joining word and none in another
#: script (a value is an identifier, a number or a path; "--rl-persist-cuda-graphs μόνο όταν" is prose).
_FLAG_VALUE = r"(?:[ =](?!--|(?:and|or|to|with|on|for|in|the|a|an|if|is|are|plus|then|but|together|alongside|instead|" \
              r"when|where|so|because|which|that|as|at|by|from|into|only|also|both|too|now|here|there|so|while|cannot|can|must|" \
              r"should|be|will|would|may|might|not|does|do|has|have|was|were|needs?|requires?|takes?)\b)" \
              r"[^\s`,;()\"'\u0080-\uffff]*[^\s`,;()\"'.\u0080-\uffff]){0,4}"
_PROSE_FLAGS = re.compile(r"(?<![\w`-])--[a-z][a-z0-9]*-[a-z0-9-]+" + _FLAG_VALUE +
                          r"(?:\s+--[a-z][a-z0-9]*-[a-z0-9-]+" + _FLAG_VALUE + r")*")
#: A list item that is one setting: "- rng.te_rng_tracker: true", "* **cuda_graph_impl**: `local`".
_BULLET_KV = re.compile(r"^(\s*(?:[-*+•]|\d+[.)])\s+)\**`?((?:[a-z_]\w*\.)*[a-z][a-z0-9]*_[a-z0-9_]+)`?\**\s*:\s*\**`?"
                        r"([\w.+-]+|\[[^\]\n]*\])`?\**(\s*(?:[.,;#(—–-].*)?)$")
#: "cuda_graph_impl: transformer_engine, cuda_graph_modules: [attn]" in a sentence: a key with an
#: underscore, a colon, and a value that is a list, a boolean, a number or an identifier.
_PROSE_COLON = re.compile(r"(?:(?<![\w.`'\"-])|(?<=(?<![\w'])'))((?:[a-z_]\w*\.)*[a-z][a-z0-9]*_[a-z0-9_]+):\s+"
                          r"(\[[^\]\n]{0,80}\]|true|false|True|False|\d+(?:\.\d+)?|[a-z]+_[a-z_]+|local|none|block|layer)"
                          r"(?=[\s,;.)]|'(?!\w)|$)")
_FILE_KEY = re.compile(r"\.(?:sh|py|ya?ml|json|toml|txt|md|cfg|ini|slurm|sbatch)$")  # "updated `train.sh` to pass …"
#: "rename(d)/move(d)/migrate X to Y": Y is the key's new name.
_RENAMED = re.compile(r"\b(?:renam\w*|mov(?:e|ed|es|ing)|migrat\w*|spell\w*|becomes?)\s+(?:the\s+)?(?:key\s+)?[`'\"]?$", re.I)
#: A value that is itself a CUDA-graph key name.
_KEY_NAME = re.compile(r"^(?:[a-z_]+\.)*(?:cuda_graph_\w+|enable_cuda_graph|external_cuda_graph|inference_cuda_graph_scope|"
                       r"use_te_rng_tracker|te_rng_tracker|check_for_nan_in_\w+)$")
_PARALLEL_KV = re.compile(r"(?<![\w.$-])(TP|PP|EP|CP|VPP|ETP)\s*=\s*(\d{1,4})(?![\w.])")
_NOT_VALUES = frozenset({"the", "a", "an", "be", "use", "make", "get", "avoid", "keep", "match", "reduce", "enable",
                         "disable", "capture", "run", "false.", "true.", "it", "this", "that", "each", "every",
                         "its", "their", "your", "our", "his", "her", "my", "some", "any", "all", "both", "one",
                         "default", "defaults", "zero", "them", "those", "these", "what", "which", "how",
                         # "disable gradient_accumulation_fusion to fix it": a purpose clause, not a value
                         "save", "fix", "free", "cut", "speed", "prevent", "stop", "help", "allow", "improve",
                         "lower", "fit", "see", "check", "confirm", "skip", "gain", "recover", "ensure", "test",
                         "verify", "isolate", "narrow", "bisect", "rule", "work", "force", "restore", "silence",
                         "suppress", "reclaim", "shave", "trade", "spare", "unblock", "mitigate",
                         "measure", "compare", "trigger", "reproduce", "satisfy", "stay",
                         # "`moe_preprocess` as above", "as shown", "as before": a reference, not a value
                         "above", "below", "shown", "follows", "usual", "described", "needed", "required", "well",
                         "before", "after", "expected", "written", "planned"})

#: A config section named right before a bare key ("dataset pad_to_max_length = False").
_SECTION_WORD = re.compile(r"\b(" + "|".join(SECTIONS) + r")\s+$", re.I)

#: "changing `recompute_modules=["moe", "layernorm"]` to `["layernorm", "moe_act"]`": the key
#: keeps its name, the value after "to" is the one asked for.
_CHANGED_TO = re.compile(r"\b((?:chang|switch|replac|edit|updat|turn|flip|bump|lower|rais|go)\w*(?:\s+from)?)\s+(?:the\s+)?"
                         r"`((?:[A-Za-z_]\w*\.)*[a-z][a-z0-9]*_[a-z0-9_]+)\s*=\s*[^`\n]+`\s+(?:to|with|into|→|->)\s+"
                         r"`(?!(?:[A-Za-z_]\w*\.)*[a-z][a-z0-9]*_[a-z0-9_]+\s*=)([^`\n]+)`", re.I)


#: "- `cuda_graph_impl`: `"none"` → `"transformer_engine"`": a key, its old value, an arrow, the new one.
_KEY_ARROW = re.compile(r"`((?:[A-Za-z_]\w*\.)*[a-z][a-z0-9]*_[a-z0-9_]+)`\s*:\s*(?:`[^`\n]*`|[^`\n→]{0,60}?)\s*(?:→|->|=>)\s*"
                        r"`([^`\n]+)`")


def changed_to_new(text: str) -> str:
    """"change `k=old` to `new`" as "change `k=new`", "`k`: `old` → `new`" as "`k=new`": the old value
    is what is there, not advice."""
    text = _KEY_ARROW.sub(lambda m: f"set `{m.group(1)}={m.group(2)}`", text)  # an explicit change asks for it
    return _CHANGED_TO.sub(lambda m: f"{m.group(1)} `{m.group(2)}={m.group(3)}`", text)


def last_sentence(text: str) -> str:
    parts = re.split(r"(?<=[.!?])\s+", text.strip())
    return parts[-1] if parts else ""


def quoted_messages_blanked(text: str) -> str:
    """``text`` with quoted messages blanked (offsets kept): ("--cuda-graph-scope and
    --cuda-graph-modules cannot be used together.") is what a library prints, not settings. Double
    quotes outside code spans pair up in order; a pair whose text has three spaces or more and no
    ``=`` is a message. A quoted value (``"transformer_engine"``) has no spaces and stays."""
    out = list(text)
    in_code = False
    opening = None
    for i, ch in enumerate(text):
        if ch == "`":
            in_code = not in_code
        elif ch in "\"“”" and not in_code:
            if opening is None:
                opening = i
            else:
                inner = text[opening + 1:i]
                if inner.count(" ") >= 3 and "=" not in inner:
                    out[opening + 1:i] = " " * len(inner)
                opening = None
    return "".join(out)
