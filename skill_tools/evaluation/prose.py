"""Settings an answer states in Markdown tables and in plain words, for :mod:`extract`.

Tables: a column's header decides the role and era of its cells ("0.16 (before)" is the legacy
spelling, "After" is recommended, "Wrong" is rejected), as the sentence before a fenced block
does for the block. A two-column ``key | value`` table states ``key=value`` per row.

Plain words: "enable the TE RNG tracker (model.use_te_rng_tracker and rng.te_rng_tracker)" sets
booleans; "use the transformer_engine implementation with moe_router plus moe_preprocess" states
the impl and the captured modules. These *intent* settings have the lowest precedence: a value the
answer writes out (``key=value``, a block) always wins over one read from its words.

Everything here is one pass over the lines it is given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator

from skill_tools.config.era import DEFAULT_CURRENT, DEFAULT_LEGACY, era_for
from skill_tools.config.flags import megatron_lm_flag
from skill_tools.evaluation.polarity import ALTERNATIVE, REJECTED, Polarity, era_of, intro_polarity

# --------------------------------------------------------------------------------------------
# Markdown tables
# --------------------------------------------------------------------------------------------

TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:[|+]\s*:?-{2,}:?\s*)*\|?\s*$")  # "+" joins org-mode columns
_KEY_CELL = re.compile(r"^`?((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*_\w*|[A-Z][A-Z0-9]*_[A-Z0-9_]+|--[a-z][a-z0-9]*(?:-[a-z0-9]+)+)`?$")
_VALUE_CELL = re.compile(r"^(?!(?:same|unchanged|as is|as-is|n/a|ditto|idem|default)$)"
                         r"(?:`[^`]+`|\"[^\"]*\"|\[[^\]]*\]|[\w.:+-]+)$", re.I)


_DITTO = frozenset({"same", "ditto", "〃", "same as left", "as left", "same as 0.16-0.17", "same as before"})


def is_table_start(lines: list[str], idx: int) -> bool:
    return "|" in lines[idx] and idx + 1 < len(lines) and bool(TABLE_RULE.match(lines[idx + 1])) \
        and "|" in lines[idx + 1]


def cells(line: str) -> list[str]:
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|"):
        s = s[:-1]
    return [c.strip() for c in s.split("|")]


#: A column header that is a graph option of a command line: Megatron-LM's ``--cuda-graph-modules``
#: or ``skill-tools apply``'s ``--scope`` / ``--impl`` / ``--warmup``.
_FLAG_HEADER = re.compile(r"^`?--(cuda-graph-[a-z-]+|scope|impl|warmup)`?$")
_APPLY_KEYS = {"impl": "cuda_graph_impl", "warmup": "cuda_graph_warmup_steps"}


def _header_key(cell: str, section_era: str | None = None) -> str | None:
    """A column header that is a config key (``cfg.model.cuda_graph_modules``) or a graph option
    (``--cuda-graph-modules``, apply's ``--scope``: the era's module key): its cells are values.
    Only dotted keys, CUDA-graph keys and graph options count; ``note`` or ``step`` does not."""
    flag = _FLAG_HEADER.match(cell.strip())
    if flag:
        name = flag.group(1)
        if name == "scope":  # apply's --scope writes the era's module key
            return era_for(DEFAULT_LEGACY if section_era == "legacy" else DEFAULT_CURRENT).modules_key
        return _APPLY_KEYS.get(name) or megatron_lm_flag(name).keys[0]
    m = _KEY_CELL.match(cell.strip())
    if not m:
        return None
    key = m.group(1)
    parts = key.split(".")
    if parts[0] in ("cfg", "config", "recipe", "args"):
        parts = parts[1:]
    key = ".".join(parts)
    return key if ("." in key or "cuda_graph" in key) and not key.isupper() else None


@dataclass
class TableCell:
    text: str  # a cell's text, or "key=value" for a key | value row
    line: int  # 1-based
    polarity: Polarity
    pair: bool  # True: text is "key=value" built from a key | value row


#: An introduction that lists what not to do: "What does *not* work on 0.16:", "Common mistakes:".
REJECTING_INTRO = re.compile(r"\b(?:(?:does|do|will|would)(?:n't| not)|won't|cannot|can't) (?:work|run|load|apply)\b|"
                              r"\b(?:mistakes|pitfalls|anti-?patterns|gotchas|don'?ts|not to do|to avoid|avoid)\b|"
                              r"\b(?:invalid|rejected|refused|wrong|broken|deprecated|obsolete|traps?)\b|"
                              r"\bbut\s+(?:aren'?t|are\s+not|isn'?t|is\s+not|don'?t|do\s+not)\b", re.I)  # "look right but aren't"


#: A cell that marks its row as what is wrong: a status or verdict column.
_BAD_CELL = re.compile(r"(?:the\s+)?(?:cause|root cause|culprit|problem|broken|bad|wrong|fails?|failing|crash(?:es)?|"
                       r"invalid|rejected)|[🔴❌✗✘⛔🚫]", re.I)


#: The first column of a table whose rows are the runs of an experiment ("| Run | change | if clean… |"
#: — a numbered "#" column lists findings or steps as often): each row is one run, offered beside the others.
_RUN_COLUMN = re.compile(r"runs?|arms?|variants?|experiments?|exp\.?|trials?")


#: "`[mlp]` (or `[attn, mlp]`)": a value cell's aside naming another choice; the cell's value is the first.
_OR_ASIDE = re.compile(r"\s*\((?:or|e\.g\.|optionally)\b[^()]*\)\s*$", re.I)
#: "`model.cuda_graph_modules` (0.18+) / `cuda_graph_scope` (0.16–0.17)": a key cell naming one key per era.
_ERA_KEY = re.compile(r"`((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)`\s*\(([^()]*\d[^()]*)\)")


def _era_keys(cell: str) -> list[tuple[str, str]]:
    """The (key, era) pairs of a key cell that names one key per era (a bare key takes the first's section)."""
    pairs = [(m.group(1), era_of(m.group(2))) for m in _ERA_KEY.finditer(cell)]
    if len(pairs) < 2 or any(era is None for _, era in pairs) or _ERA_KEY.sub("", cell).strip(" /|,;*_") not in ("", "or"):
        return []
    section = pairs[0][0].rpartition(".")[0]
    return [(name if "." in name or not section else f"{section}.{name}", era) for name, era in pairs]


def _unemphasised(cell: str) -> str:
    m = re.fullmatch(r"(\*{1,2}|_{1,2})(\S(?:.*\S)?)\1", cell.strip())
    return m.group(2) if m else cell


def table_cells(lines: list[str], start: int, section_era: str | None) -> tuple[list[TableCell], int]:
    """The cells of the table whose header is ``lines[start]``, each with its column's polarity;
    returns them and the index of the first line after the table."""
    header = cells(lines[start])
    cols = [intro_polarity(h, "", section_era) for h in header]
    intro = next((ln for ln in reversed(lines[max(0, start - 2):start]) if ln.strip()), "")
    if cols and intro.rstrip().endswith(":") and REJECTING_INTRO.search(intro.replace("*", "").replace("_", " ")):
        cols[0] = Polarity(REJECTED, cols[0].era, "the table's introduction rejects its rows")  # "What does not work:"
    keyed = {j: _header_key(h, section_era) for j, h in enumerate(header) if j and _header_key(h, section_era)}
    runs = bool(header) and bool(_RUN_COLUMN.fullmatch(header[0].strip(" *_`").lower()))
    out: list[TableCell] = []
    i = start + 2
    first_row = True
    while i < len(lines) and "|" in lines[i] and lines[i].strip():
        row = cells(lines[i])
        for j in range(2, len(row)):  # "| RNG | `use_te_rng_tracker=True` | same |": the left cell again
            if row[j].strip(" *_").lower() in _DITTO:
                row[j] = row[j - 1]
        row_era = era_of(row[0]) if row and len(row[0]) <= 40 else None  # | 0.18+ | … |: that era's row
        if row_era is not None:
            cols_here = [Polarity(c.role, row_era, c.why) for c in cols]
        else:
            cols_here = cols
        if runs and row and len(row[0].strip(" *_`")) <= 8:  # | C | `overlap_…=False` | …: one run of an experiment
            cols_here = [c if c.role == REJECTED else Polarity(ALTERNATIVE, c.era, "a run of an experiment table")
                         for c in cols_here]
        if keyed:  # | step | `cfg.model.cuda_graph_modules` | note |: each row one value of that key
            bad = any(_BAD_CELL.fullmatch(c.strip(" *_`")) for c in row)  # | 0.19 | `local` | ❌ |: a refused value
            for j, key in keyed.items():
                cell = row[j] if j < len(row) else ""
                if cell and _VALUE_CELL.match(cell):
                    pol = Polarity(REJECTED, row_era, "a table row marked as refused") if bad else \
                        cols_here[j] if first_row or row_era else Polarity(ALTERNATIVE, cols[j].era, "a later row of the table")
                    out.append(TableCell(f"{key}={cell.strip('`')}", i + 1, pol, True))
            first_row = False
            i += 1
            continue
        key = _KEY_CELL.match(row[0]) if row else None
        per_era = _era_keys(row[0]) if row and not key else []
        if (key or per_era) and "=" not in row[0] and len(row) >= 2:
            for j, cell in enumerate(row[1:], 1):
                cell = _OR_ASIDE.sub("", _unemphasised(cell))  # | `--x` | on | **off** |: the bold marks the change
                if cell and _VALUE_CELL.match(cell) and j < len(cols):
                    value = cell.strip("`")
                    for name, era in per_era or [(key.group(1), None)]:
                        pol = cols_here[j] if era is None else Polarity(cols_here[j].role, era, cols_here[j].why)
                        out.append(TableCell(f"{name}={value}", i + 1, pol, True))
        elif any(_BAD_CELL.fullmatch(c.strip(" *_`")) for c in row):  # | 🔴 | `x=["mlp"]` with `local` | **cause** |
            out += [TableCell(c, i + 1, Polarity(REJECTED, row_era, "a table row marked as the problem"), False) for c in row if c]
        else:
            for j, cell in enumerate(row):
                if cell:
                    out.append(TableCell(cell, i + 1, cols_here[j] if j < len(cols) else Polarity("suggested", row_era), False))
        i += 1
    return out, i


# --------------------------------------------------------------------------------------------
# Settings stated in words
# --------------------------------------------------------------------------------------------

#: Boolean keys an answer may switch on or off by name (last component -> full key).
BOOL_KEYS = {
    "use_te_rng_tracker": "model.use_te_rng_tracker", "te_rng_tracker": "rng.te_rng_tracker",
    "check_for_nan_in_loss": "rerun_state_machine.check_for_nan_in_loss",
    "check_for_nan_in_grad": "ddp.check_for_nan_in_grad",
    "moe_pad_expert_input_to_capacity": "model.moe_pad_expert_input_to_capacity",
    "cpu_offloading": "model.cpu_offloading", "optimizer_cuda_graph": "optimizer.optimizer_cuda_graph",
    "moe_pad_experts_for_cuda_graph_inference": "model.moe_pad_experts_for_cuda_graph_inference",
    "gradient_accumulation_fusion": "model.gradient_accumulation_fusion",
    "overlap_moe_expert_parallel_comm": "model.overlap_moe_expert_parallel_comm",
    "delay_wgrad_compute": "model.delay_wgrad_compute",
}
_BOOL_KEY = re.compile(r"(?<![\w.])(?:(?:model|rng|ddp|rerun_state_machine|optimizer)\.)?(" +
                       "|".join(sorted(BOOL_KEYS, key=len, reverse=True)) + r")\b")
#: Settings people name in words as a group: "the TE RNG tracker", "both RNG flags", "the NaN checks".
NAMED_GROUPS = {
    r"(?:TE\s+|Transformer Engine'?s?\s+)?RNG\s+(?:tracker|flags?)(?:\s+flags?)?": ("model.use_te_rng_tracker", "rng.te_rng_tracker"),
    # "the loss/grad NaN checks": both, named one by one
    r"(?:loss|grad(?:ient)?s?)\s*(?:/|&|\+|and|or)\s*(?:loss|grad(?:ient)?s?)\s+NaN\s+checks?": (
        "rerun_state_machine.check_for_nan_in_loss", "ddp.check_for_nan_in_grad"),
    # "Gradient NaN check disabled" names one check, not the pair (longer names first: same start)
    r"grad(?:ient)?s?\s+NaN\s+checks?": ("ddp.check_for_nan_in_grad",),
    r"loss\s+NaN(?:/spike)?\s+checks?": ("rerun_state_machine.check_for_nan_in_loss",),
    r"NaN\s+checks?": ("rerun_state_machine.check_for_nan_in_loss", "ddp.check_for_nan_in_grad"),
    r"NaN[- ]in[- ]loss\s+checks?": ("rerun_state_machine.check_for_nan_in_loss",),
    r"NaN[- ]in[- ]grad(?:ient)?s?\s+checks?": ("ddp.check_for_nan_in_grad",),
}
_GROUPS = [(re.compile(r"\b" + p + r"\b", re.I), keys) for p, keys in NAMED_GROUPS.items()]
_GROUP_ANY = "(?:" + "|".join(NAMED_GROUPS) + ")"
#: "set both RNG flags back to False", "set the NaN checks to false".
_SET_GROUP = re.compile(r"\bset(?:ting)?\s+(?:(?:both|all|the|its|these|those|two)\s+)*(" + _GROUP_ANY + r")\s+"
                        r"(?:back\s+)?to\s+[`'\"]?(true|false|on|off)\b", re.I)
#: "with the NaN checks disabled", "the RNG tracker stays on".
_GROUP_STATE = re.compile(r"(" + _GROUP_ANY + r")\s+(?:(?:is|are|stays?|kept|left|turned|switched)\s+)?"
                          r"(disabled|enabled|off|on)\b(?!\s+(?:its|their|own|top|the|a|an|every|each|all|any|this|that|"
                          r"\d|rank|node|gpu|hopper|blackwell|ampere)\b)", re.I)  # "… tracker on its own" is no state
#: Switching on / off, also in the other languages answers come in (Chinese has no word boundaries).
_SWITCH = re.compile(r"((?<!\w)(?:turn(?:ing)? on|switch(?:ing)? on|enabl(?:e|ing)|keep(?:ing)? on|aktivier(?:e|en))(?!\w)|"
                     r"开启|打开|启用|再开)|"
                     r"((?<!\w)(?:turn(?:ing)? off|switch(?:ing)? off|disabl(?:e|ing)|deaktivier(?:e|en))(?!\w)|关闭|关掉|禁用)", re.I)
_KEEP_STATE = re.compile(r"\b(?:keep|leave|have)\s+([\w.` ,/]{3,160}?)\s+(on|off|enabled|disabled|true|false)\b", re.I)
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|:(?=\s)|[。！？；：]")
_IMPL_WORD = re.compile(r"(?<![\w.=\"'-])(transformer_engine|full_iteration)(?![\w\"'=])|"
                        r"\b(local)\s+(?:implementation|impl)\b", re.I)
#: The impl is recommended only where the words recommend it: a verb right before it ("use the
#: transformer_engine implementation", "switch to transformer_engine") or "the implementation is X";
#: "the crash is the local implementation with a partial scope" describes, it does not recommend.
_IMPL_RECOMMENDED = re.compile(r"(?:\b(?:use|using|switch(?:ing)? to|move to|go with|start with|begin with|choose|"
                               r"pick|set (?:it|the impl\w*) to|try)\s+(?:the\s+|a\s+|TE'?s?\s+|MCore'?s?\s+)?"
                               r"(?:`|\"|')?$)|(?:\b(?:implementation|impl)\s+(?:is|=|:|should be|becomes)\s+(?:`|\"|')?$)",
                               re.I)
#: The module names a graph scope lists (longest first: "moe_router" before "moe").
_MODULE_NAMES = "moe_router|moe_preprocess|attn|mlp|moe|mamba"
_MODULE_WORD = re.compile(r"(?<![\w.-])`?(" + _MODULE_NAMES + r")`?(?![\w-])")
_MODULE_CONTEXT = re.compile(r"\b(?:modules?|module list|scopes?|captured|capture|with)\b", re.I)
_PAREN = re.compile(r"\([^()]*\)")


#: "keep the scope at ["mlp"]", "modules: [attn, moe_router]": a module list named in words.
_SCOPE_LIST = re.compile(r"\b(?:scope|modules|module list)\b[^.;:\[\]]{0,20}?\[([^\[\]]{1,120})\]", re.I)


@dataclass
class Stated:
    key: str
    value: object
    pos: int  # offset in the line of the words that state it
    length: int


def _sentences(text: str) -> Iterator[tuple[int, int]]:
    start = 0
    for m in _SENTENCE_END.finditer(text):
        yield start, m.end()
        start = m.end()
    if start < len(text):
        yield start, len(text)


_LIST_EMPTY = re.compile(r"(?<![\w.])(?:model\.)?(cuda_graph_modules|cuda_graph_scope)`?\s+(?:left\s+|kept\s+|as\s+an\s+)?"
                         r"(?:empty|\(empty\)|empty list)\b", re.I)
_MOD = r"`?(?:" + _MODULE_NAMES + r")`?"
#: "modules moe_router + moe_preprocess", "module list attn and mlp": the list named in words.
_MODULES_NAMED = re.compile(r"\b(?:modules|module list|graph modules)\s+(" + _MOD + r"(?:\s*(?:\+|,|and|&)\s*" + _MOD + r")+)",
                            re.I)
#: "Modules: [attn, moe]": a module list after a label (the colon ends no sentence here).
_SCOPE_LABEL = re.compile(r"\b(?:scope|modules|module list|captured modules)\s*:\s*\[([^\[\]]{1,120})\]", re.I)


#: "keep Megatron's default CudaRNGStatesTracker": the TE RNG tracker off, in the words of its alternative.
_MEGATRON_TRACKER = re.compile(r"\b(?:keep(?:ing)?|stay(?:ing)? (?:on|with)|stick(?:ing)? with)\s+(?:the\s+)?(?:Megatron'?s\s+)?"
                               r"(?:own\s+|default\s+|stock\s+|native\s+)*(?:CudaRNGStatesTracker|Megatron(?:'s)?\s+"
                               r"(?:own\s+|default\s+|native\s+)*(?:RNG\s+)?tracker)\b", re.I)


def stated_in_words(text: str) -> Iterator[Stated]:
    """Booleans switched on/off by name, and an impl with the modules named in its sentence."""
    for m in _MEGATRON_TRACKER.finditer(text):
        for key in ("model.use_te_rng_tracker", "rng.te_rng_tracker"):
            yield Stated(key, False, m.start(), m.end() - m.start())
    for m in _SCOPE_LABEL.finditer(text):
        names = [n.strip(" '\"`") for n in m.group(1).split(",")]
        if names and all(_MODULE_WORD.fullmatch(n) for n in names):
            yield Stated("model.cuda_graph_modules", names, m.start(), m.end() - m.start())
    for lo, hi in _sentences(text):
        sentence = text[lo:hi]
        for m in _SWITCH.finditer(sentence):
            value = m.group(1) is not None
            tail_end = len(sentence)
            nxt = _SWITCH.search(sentence, m.end())
            if nxt:
                tail_end = nxt.start()
            for k in _BOOL_KEY.finditer(sentence, m.end(), tail_end):
                if sentence[k.end():k.end() + 3].lstrip().startswith(("=", ":")):
                    continue  # written out as key=value: read as such
                yield Stated(BOOL_KEYS[k.group(1)], value, lo + m.start(), m.end() - m.start())
        for m in _KEEP_STATE.finditer(sentence):  # "keep use_te_rng_tracker and rng.te_rng_tracker on"
            value = m.group(2).lower() in ("on", "enabled", "true")
            for k in _BOOL_KEY.finditer(m.group(1)):
                yield Stated(BOOL_KEYS[k.group(1)], value, lo + m.start(), m.end() - m.start())
        yield from _named_groups(sentence, lo)
        for m in _LIST_EMPTY.finditer(sentence):  # "with cuda_graph_modules empty"
            yield Stated("model." + m.group(1), [], lo + m.start(), m.end() - m.start())
        for m in _MODULES_NAMED.finditer(sentence):  # "modules moe_router + moe_preprocess"
            names = re.findall(_MODULE_NAMES, m.group(1))
            yield Stated("model.cuda_graph_modules", list(dict.fromkeys(names)), lo + m.start(), m.end() - m.start())
        for m in _SCOPE_LIST.finditer(sentence):
            names = [n.strip(" '\"`") for n in m.group(1).split(",")]
            if names and all(_MODULE_WORD.fullmatch(n) for n in names):
                yield Stated("model.cuda_graph_modules", names, lo + m.start(), m.end() - m.start())
        impl = next((m for m in _IMPL_WORD.finditer(sentence)
                     if _IMPL_RECOMMENDED.search(sentence[max(0, m.start() - 60):m.start()])), None)
        if impl is None:
            continue
        name = (impl.group(1) or impl.group(2)).lower()
        yield Stated("model.cuda_graph_impl", name, lo + impl.start(), impl.end() - impl.start())
        if name == "full_iteration":
            continue
        bare = _PAREN.sub(lambda p: " " * len(p.group(0)), sentence)  # asides do not name the modules
        mods = [m.group(1) for m in _MODULE_WORD.finditer(bare, impl.end())]
        if mods and _MODULE_CONTEXT.search(bare):
            first = next(_MODULE_WORD.finditer(bare, impl.end()))
            yield Stated("model.cuda_graph_modules", list(dict.fromkeys(mods)), lo + first.start(),
                         first.end() - first.start())


def _group_keys(name: str) -> tuple[str, ...]:
    return next((keys for pattern, keys in _GROUPS if pattern.fullmatch(name.strip())), ())


def _named_groups(sentence: str, lo: int) -> Iterator[Stated]:
    """Groups of settings switched by their common name ("turn the NaN checks off")."""
    seen: set[int] = set()
    for m in _SET_GROUP.finditer(sentence):
        value = m.group(2).lower() in ("true", "on")
        seen.add(m.start(1))
        for key in _group_keys(m.group(1)):
            yield Stated(key, value, lo + m.start(), m.end() - m.start())
    for m in _GROUP_STATE.finditer(sentence):
        if m.start(1) in seen:
            continue
        seen.add(m.start(1))
        value = m.group(2).lower() in ("enabled", "on")
        for key in _group_keys(m.group(1)):
            yield Stated(key, value, lo + m.start(), m.end() - m.start())
    for m in _SWITCH.finditer(sentence):
        value = m.group(1) is not None
        nxt = _SWITCH.search(sentence, m.end())
        tail = sentence[m.end():nxt.start() if nxt else len(sentence)]
        for pattern, keys in _GROUPS:
            g = pattern.search(tail)
            if g and m.end() + g.start() not in seen and not re.match(r"\s*[=:]", tail[g.end():]):
                for key in keys:
                    yield Stated(key, value, lo + m.start(), m.end() - m.start())
