"""Settings written in one span: an inline code span (`` `--flag value` ``, `` `key=value` ``,
`` `key: value` ``, a Python assignment) or a Markdown table row (``| key | value |``, with a
Megatron-LM flag as the key too). Each becomes a :class:`Block` for the canonical readers; the
polarity comes from the caller (the clause around the span, the table's column).
"""

from __future__ import annotations

import re
from typing import Iterator

from skill_tools.config.flags import megatron_lm_flag
from skill_tools.config.model import SECTIONS
from skill_tools.evaluation.fragments import _DANGER_TEXT, Block, _shell_blocks
from skill_tools.evaluation.prose import BOOL_KEYS

_SECTIONED_ASSIGN = re.compile(r"^(" + "|".join(SECTIONS) + r")\s+"
                               r"([a-z_]\w*(?:\.\w+)*)\s*[=:]\s*(\S.*)$", re.I)
_PY_ASSIGN = re.compile(r"^\s*[A-Za-z_][\w.\[\]'\"]*\s*=\s*\S")
#: Table cells that switch a Megatron-LM boolean flag on or off.
_ON = frozenset({"on", "yes", "true", "enabled", "enable", "set", "✓", "✔", "x"})
_OFF = frozenset({"off", "no", "false", "disabled", "disable", "unset", "-", "—", "✗", "✘"})


def table_pair_blocks(cell) -> Iterator[Block]:
    """A ``| key | value |`` row: an environment variable, a config key, or a Megatron-LM flag
    (``| `--cuda-graph-impl` | `local` |``; a boolean flag's cell says on or off)."""
    p = cell.polarity
    key, value = cell.text.split("=", 1)
    if re.fullmatch(r"\s*`?[A-Za-z_][\w.]*\([^()]*\)`?\s*", value):
        return  # | `moe_preprocess` | `MoELayer.preprocess()` |: the code a name stands for, not its value
    if key.startswith("--"):
        v = value.strip().lower()
        flag = megatron_lm_flag(key[2:])
        if v in _OFF and flag.kind == "flag" and len(flag.keys) == 1:
            blocks = [Block("hydra", f"{flag.keys[0]}=false", cell.line, "table", p.role)]  # | `--rl-persist-cuda-graphs` | off |
        elif v in _OFF:
            return
        else:
            text = key if v in _ON else f"{key} {value.strip()}"
            blocks = list(_shell_blocks(text, cell.line, p.role, "table"))
    elif key.isupper():
        blocks = [Block("env", cell.text, cell.line, "table", p.role)]
    else:
        blocks = [Block("hydra", _kv(key, value), cell.line, "table", p.role)]
    for block in blocks:
        block.origin = "table"
        block.era, block.why = p.era, p.why or "a key | value table row"
        yield block


#: The section a sentence names as the owner of the setting that follows: "the dataset's `x=…`",
#: "the DDP config's `x`", "rng section: `x`".
_OWNER = re.compile(r"\b(?:the\s+)?(dataset|ddp|rng|train|optimizer|checkpoint|logger|scheduler|tokenizer|"
                    r"rerun_state_machine|mixed_precision|comm_overlap)(?:'s|\s+(?:config|section|block)(?:'s)?)\s*:?\s*$", re.I)


def placed_by_owner(code: str, before: str) -> str:
    """``pad_to_max_length=True`` after "the dataset's" is ``dataset.pad_to_max_length=True``: a bare
    key the sentence places in a section (readers otherwise put bare keys under ``model.``)."""
    m = _OWNER.search(before)
    if m and re.match(r"^[a-z][a-z0-9_]*\s*(?:=|:\s)", code.strip()):
        return f"{m.group(1).lower()}.{code.strip()}"
    return code


def _inline_code(code: str, ln: int, role: str) -> Iterator[Block]:
    code = code.strip()
    if _DANGER_TEXT.search(code):
        yield Block("shell", code, ln, "inline", role)  # screened and rejected
        return
    sectioned = _SECTIONED_ASSIGN.match(code)  # `dataset pad_to_max_length = False`
    if sectioned:
        yield Block("hydra", _kv(f"{sectioned.group(1).lower()}.{sectioned.group(2)}", sectioned.group(3).strip()),
                    ln, "inline", role)
    elif code.startswith("--"):
        if _message(code):
            return  # `--cuda-graph-scope and --cuda-graph-modules cannot be used together.`: a quoted error
        yield from _shell_blocks(code, ln, role, "inline")
    elif re.match(r"^(?:export\s+)?[A-Z][A-Z0-9_]{2,}=\S", code):
        yield from _shell_blocks(code, ln, role, "inline")
    elif re.match(r"^(?:offline_packing_specs|packed_sequence_specs)\.\w+\s*=", code):
        key, value = code.split("=", 1)
        yield Block("hydra", _kv(key.strip(), value.strip()), ln, "inline", role)
    elif re.match(r"^[\w.\[\]'\"]+\s+=\s+\S", code) and _PY_ASSIGN.match(code) and \
            "." in code.split("=", 1)[0]:
        yield Block("python", code, ln, "inline", role)
    elif re.match(r"^[A-Za-z_][\w.]*\s*=\s*\S", code) and ("." in code.split("=", 1)[0] or "_" in code.split("=", 1)[0]):
        key, value = code.split("=", 1)
        yield Block("hydra", _kv(key.strip(), value.strip()), ln, "inline", role)
    elif _INLINE_YAML.match(code):  # `cuda_graph_impl: transformer_engine`: a one-line YAML setting
        m = _INLINE_YAML.match(code)
        yield Block("hydra", _kv(m.group(1), m.group(2).strip()), ln, "inline", role)


#: Words of a sentence that no flag takes as its value.
_SENTENCE_WORDS = frozenset("and or cannot can be is are should must not with the when only used together "
                            "supported instead requires required invalid unknown allowed expected error got for".split())


def _message(code: str) -> bool:
    """A code span that quotes what a program printed: flags joined by words of a sentence."""
    words = [w.strip(".,;:!?'\"").lower() for w in code.split()]
    return sum(w in _SENTENCE_WORDS for w in words) >= 2


_INLINE_YAML = re.compile(r"^((?:[A-Za-z_]\w*\.)*[a-z][a-z0-9]*_[a-z0-9_]+):\s+(\[[^\]]*\]|[\w.+-]+)\s*$")


def _kv(key: str, value: str) -> str:
    """One Hydra override from prose: ``["attn", "mlp"]`` loses its spaces (one token, as written)."""
    if value.startswith("[") and value.endswith("]"):
        value = re.sub(r"\s+", "", value)
    if value in ("None", "none") and "cuda_graph_impl" not in key:
        value = "null"  # Python's None written in prose ("cuda_graph_scope = None"); impl "none" is a value
    key = _strip_root(key)
    if key.startswith(("offline_packing_specs.", "packed_sequence_specs.")):
        key = "dataset." + key  # Bridge's packing specs live under dataset
    return f"{BOOL_KEYS.get(key, key)}={value}"  # a bare "te_rng_tracker" is rng.te_rng_tracker


def _strip_root(key: str) -> str:
    """``cfg.model.x`` in prose means ``model.x``: drop a Python object root before a section."""
    parts = key.split(".")
    if len(parts) >= 3 and parts[0] not in SECTIONS and parts[1] in SECTIONS:
        return ".".join(parts[1:])
    return key
