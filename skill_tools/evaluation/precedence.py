"""Which of an answer's settings count when it writes several: the config written down (a code
block, a table row, a changed file) outranks a setting a sentence only mentions, and a later
block that names another implementation replaces the earlier graph settings.
"""

from __future__ import annotations

import copy
from typing import Any, Iterator

from skill_tools.config.model import CanonicalConfig
from skill_tools.evaluation.fragments import SUGGESTED, Block
from skill_tools.evaluation.polarity import ALTERNATIVE

#: Where an answer writes its config down (a code block, a table row, a changed file), as against
#: mentioning a setting in a sentence.
WRITTEN_ORIGINS = ("fenced", "unfenced", "table", "workspace")
#: How a block's ``why`` starts when its era tag was dropped (:func:`extract._settle`): a note, not an ask.
ERA_NOTE = "written for "
#: Keys that together say what is captured: a sentence that names one of them beside a written
#: config that already says what is captured describes, it does not add.
_GRAPH_GROUP = ("model.cuda_graph_impl", "model.cuda_graph_modules", "model.cuda_graph_scope",
                "model.enable_cuda_graph", "model.external_cuda_graph", "model.inference_cuda_graph_scope")
#: Keys that name an implementation (the deprecated booleans included).
IMPL_KEYS = ("model.cuda_graph_impl", "model.enable_cuda_graph", "model.external_cuda_graph")
#: Keys that name the captured modules, in either era's spelling.
LIST_KEYS = ("model.cuda_graph_modules", "model.cuda_graph_scope")


def written_suggestions(blocks: list[Block]) -> Iterator[Block]:
    """The blocks that write down what the answer recommends (a code block, a table row, a changed
    file), read without error."""
    return (b for b in blocks if b.origin in WRITTEN_ORIGINS and b.role == SUGGESTED and b.cfg is not None and b.error is None)


def writes(blocks: list[Block], keys: tuple[str, ...], suggested_only: bool = False) -> bool:
    """Whether the answer writes any of ``keys`` down (a block, a table row, a changed file), not
    only in prose; with ``suggested_only``, in a block it recommends."""
    return any(b.origin in WRITTEN_ORIGINS and b.cfg is not None and (not suggested_only or b.role == SUGGESTED)
               and any(b.cfg.has(k) for k in keys) for b in blocks)


def outranked(blocks: list[Block], era: str | None) -> dict[int, Block]:
    """Settings a sentence mentions without asking for them (no "set", "use", "add", no label: a
    recommended clause with no ``why``), where the answer's written config says otherwise: the same
    key with another value, or a CUDA-graph key beside written graph settings ("TE graphs only
    permit `inference_cuda_graph_scope=none`" under a table that sets ``block``; "(replaces
    `enable_cuda_graph = True`)" under a block that sets ``cuda_graph_impl``). The written config
    outranks them; they are kept as described. Returns, by block id, the block with those settings
    removed (its ``cfg`` None when nothing is left)."""
    written: dict[str, Any] = {}
    for role in (SUGGESTED, ALTERNATIVE):  # an answer that writes its configs only as options ("Option A:
        for b in blocks:                   # …", "Option B: …") outranks a sentence's mention with them
            if b.origin in WRITTEN_ORIGINS and b.role == role and b.cfg is not None and b.error is None and \
                    (b.era is None or era is None or b.era == era):
                written.update(b.cfg.values)
        if written:
            break
    if not written:
        return {}
    only_options = role == ALTERNATIVE  # then a mention restates an option at best: it sets no main value
    graph_written = any(k in written for k in _GRAPH_GROUP)
    out: dict[int, Block] = {}
    for b in blocks:
        label = "" if b.why.startswith(ERA_NOTE) else b.why  # the era note of extract._settle asks for nothing
        if b.origin in WRITTEN_ORIGINS or b.role != SUGGESTED or label or b.cfg is None:
            continue
        drop = [k for k, v in b.cfg.values.items()
                if (k in written and (written[k] != v or only_options))
                or (k in _GRAPH_GROUP and (k not in written or only_options) and graph_written)]
        if not drop:
            continue
        kept = CanonicalConfig(source=b.cfg.source, fmt=b.cfg.fmt)
        for k, v in b.cfg.values.items():
            if k not in drop:
                kept.set(k, v, b.cfg.locations.get(k))
        kept.env.update(b.cfg.env)
        twin = copy.copy(b)
        twin.cfg = kept if (kept.values or kept.env) else None
        out[id(b)] = twin
    return out


def impl_of(cfg: CanonicalConfig) -> str | None:
    """The implementation a config asks for (``enable_cuda_graph=True`` is ``local``), None if unsaid."""
    if cfg.has("model.cuda_graph_impl"):
        return str(cfg.get("model.cuda_graph_impl"))
    if cfg.get("model.enable_cuda_graph") is True:
        return "local"
    if cfg.get("model.external_cuda_graph") is True:
        return "transformer_engine"
    return None


def graphs_on(cfg: CanonicalConfig) -> bool:
    """The config captures graphs (any implementation)."""
    return impl_of(cfg) not in (None, "none")


def supersede(config: CanonicalConfig, cfg: CanonicalConfig) -> None:
    """A later written block restates what is captured: with another implementation ("Attempt 2 —
    use this one", a second recipe version) its graph settings replace the earlier ones as a group;
    with a module list in the other spelling, that list replaces the other one. Written settings
    otherwise merge key by key, the later value winning."""
    new, old = impl_of(cfg), impl_of(config)
    if new is not None and old is not None and new != old:
        for key in _GRAPH_GROUP:
            if config.has(key) and not cfg.has(key):
                config.unset(key)
        return
    for mine, other in (("model.cuda_graph_modules", "model.cuda_graph_scope"),
                        ("model.cuda_graph_scope", "model.cuda_graph_modules")):
        if cfg.get(mine) is not None and config.has(other) and not cfg.has(other):
            config.unset(other)


def restates_option(cfg: CanonicalConfig, options: list[CanonicalConfig], config: CanonicalConfig) -> bool:
    """A mentioned setting that repeats one of the answer's other configs and contradicts its main
    one ("`--cuda-graph-scope attn moe_router` → `--cuda-graph-modules attn moe_router`" after a
    second recipe's block): it restates that config, it does not change the main one."""
    values = cfg.values
    return bool(values) and any(all(o.values.get(k, object()) == v for k, v in values.items()) for o in options) \
        and any(config.has(k) and config.values[k] != v for k, v in values.items())
