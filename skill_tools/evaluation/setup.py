"""The setup a task states: MCore version and era, workload (dense / moe / moe_droppad /
inference) and the user's existing config, from ``rubric`` when it says so, else from the
question's own words.

An answer's settings are applied on top of this setup, for validation and for ``--execute``:
"turn on moe_router capture" is right for the MoE model the question describes, even though
the answer does not restate ``num_moe_experts``. Setup words are read from the question only
(trusted task data), never from the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from skill_tools.config.era import DEFAULT_CURRENT, DEFAULT_LEGACY
from skill_tools.config.model import CanonicalConfig
from skill_tools.evaluation.extract import Extraction
from skill_tools.evaluation.precedence import IMPL_KEYS, LIST_KEYS, writes

_VERSION = re.compile(r"(?:megatron[- ]core|mcore|megatron-lm|core_v|m-core)\s*(?:v|version\s*)?(0\.(\d+)(?:\.\d+)?)", re.I)
_MOE = re.compile(r"\b(?:moe|num_moe_experts|mixture[- ]of[- ]experts|experts?|mixtral|deepseek[- ]?v[23]|qwen3?[- ]?\d*b?[- ]?a\d+b|"
                  r"qwen3[- ]moe|olmoe|dbrx|grok)\b", re.I)
_DENSE = re.compile(r"\bdense\b", re.I)
_DROPPAD = re.compile(r"\b(?:drop[- ]?and[- ]?pad|capacity factor|moe_expert_capacity_factor|pad(?:ded)? to capacity|"
                      r"token dropping)\b", re.I)
_DROPLESS = re.compile(r"\bdropless\b", re.I)
_INFERENCE = re.compile(r"\b(?:inference|decode|decoding|generation|serving|dynamic inference|text generation)\b", re.I)
_TRAINING = re.compile(r"\b(?:train|training|pretrain|fine[- ]?tun\w*|sft)\b", re.I)
_EXPERTS = re.compile(r"\b(\d{1,4})\s*(?:routed\s+)?experts\b", re.I)
_PAR = {"TP": "model.tensor_model_parallel_size", "PP": "model.pipeline_model_parallel_size",
        "EP": "model.expert_model_parallel_size", "CP": "model.context_parallel_size"}
_PAR_RE = re.compile(r"\b(TP|PP|EP|CP)\s*[=:]?\s*(\d{1,3})\b")


#: "TE CUDA graphs on attn, moe_router", "TE-scoped CUDA graphs", "cuda_graph_impl="transformer_engine"":
#: the user already runs Transformer Engine graphs.
_TE_GRAPHS = re.compile(r"\b(?:TE|Transformer Engine)[- ](?:scoped\s+|layer\s+)?(?:CUDA[- ])?graphs?\b|"
                        r"cuda[-_]graph[-_]impl\W{1,3}transformer[-_]engine", re.I)

#: "TE CUDA graphs on attn, moe_router, moe_preprocess": the modules of the run that failed (a
#: wish, "want TE graphs on attn", is not a run).
_MODULE = r"(?:attn|mlp|moe_router|moe_preprocess|moe|mamba)"
_TE_MODULES = re.compile(r"(?<!want )(?<!like )(?<!to add )\b(?:TE|Transformer Engine)[- ](?:scoped\s+)?(?:CUDA[- ])?graphs?\s+"
                         rf"(?:on|over|for)\s+`?({_MODULE}`?(?:\s*(?:,|and|,\s*and)\s*`?{_MODULE}`?)*)\b", re.I)


@dataclass
class Setup:
    mcore_version: str | None = None
    workload: str = "dense"
    context: dict[str, Any] = field(default_factory=dict)
    stated: list[str] = field(default_factory=list)  # what was read, and from where
    #: the CUDA-graph implementation the user runs, as the question states it (None: not stated)
    graph_impl: str | None = None
    #: the modules those graphs capture, as the question names them (empty: not stated)
    graph_modules: list[str] = field(default_factory=list)
    #: the question says whether the model is MoE or dense (else a config capturing MoE modules
    #: is judged on an MoE model: "a second recipe uses moe_router" is about that recipe's model)
    model_stated: bool = True

    def context_for(self, cfg: Any) -> dict[str, Any]:
        """The stated context a config is laid over."""
        if self.model_stated or (self.context.get("model") or {}).get("num_moe_experts"):
            return self.context
        modules = cfg.get("model.cuda_graph_modules") or cfg.get("model.cuda_graph_scope") or []
        if not any(str(m).startswith("moe") for m in (modules if isinstance(modules, list) else [modules])):
            return self.context
        model = dict(self.context.get("model") or {}, num_moe_experts=8, moe_router_topk=2)
        return dict(self.context, model=model)

    @property
    def era(self) -> str | None:
        if not self.mcore_version:
            return None
        minor = int(self.mcore_version.split(".")[1])
        return "legacy" if minor < 18 else "current"

    def to_dict(self) -> dict[str, Any]:
        return {"mcore_version": self.mcore_version, "era": self.era, "workload": self.workload,
                "context": self.context, "stated": self.stated}


def task_setup(task_data: dict[str, Any]) -> Setup:
    rubric = task_data.get("rubric") or {}
    question = str(task_data.get("question", ""))
    setup = Setup()
    if rubric.get("mcore_version"):
        setup.mcore_version = str(rubric["mcore_version"])
        setup.stated.append(f"mcore_version {setup.mcore_version} (rubric)")
    else:
        m = _VERSION.search(question)
        if m:
            minor = int(m.group(2))
            setup.mcore_version = m.group(1) if m.group(1).count(".") == 2 else \
                (DEFAULT_LEGACY if minor == 16 else f"0.{minor}.0" if minor < 18 else
                 DEFAULT_CURRENT if minor == 19 else f"0.{minor}.0")
            setup.stated.append(f"megatron-core {m.group(1)} (question)")
    context = _nested_copy(rubric.get("context") or {})
    if rubric.get("context"):
        setup.stated.append("context (rubric)")
    model = context.setdefault("model", {})
    moe = bool(_MOE.search(question)) or int(model.get("num_moe_experts") or 0) > 1
    setup.model_stated = moe or bool(_DENSE.search(question)) or bool(rubric.get("workload"))
    droppad = bool(_DROPPAD.search(question)) and not _DROPLESS.search(question)
    if rubric.get("workload"):
        setup.workload = str(rubric["workload"])
    elif _INFERENCE.search(question) and not _TRAINING.search(question):
        setup.workload = "inference"
    elif moe:
        setup.workload = "moe_droppad" if droppad else "moe"
    if setup.workload == "moe" and droppad and not rubric.get("workload"):
        setup.workload = "moe_droppad"
    if moe and not model.get("num_moe_experts"):
        m = _EXPERTS.search(question)
        model["num_moe_experts"] = int(m.group(1)) if m and int(m.group(1)) > 1 else 8
        model.setdefault("moe_router_topk", 2)
        setup.stated.append(f"MoE model, num_moe_experts={model['num_moe_experts']} (question)")
    if moe and droppad:
        model.setdefault("moe_expert_capacity_factor", 1.0)
        model.setdefault("moe_pad_expert_input_to_capacity", True)
        setup.stated.append("drop-and-pad MoE (question)")
    if (rubric.get("outcome") or {}).get("kind") == "diagnosis" and _TE_GRAPHS.search(question):
        # a diagnosis task describes the run that failed; a bring-up task's "enable TE graphs" is a wish
        setup.graph_impl = "transformer_engine"
        setup.stated.append("runs TE CUDA graphs (question)")
        m = _TE_MODULES.search(question)
        if m:
            setup.graph_modules = re.findall(_MODULE, m.group(1))
            setup.stated.append(f"TE graphs on {', '.join(setup.graph_modules)} (question)")
    for name, n in _PAR_RE.findall(question):
        model.setdefault(_PAR[name].split(".", 1)[1], int(n))
    if not model:
        context.pop("model")
    setup.context = context
    return setup


def _nested_copy(d: dict[str, Any]) -> dict[str, Any]:
    return {k: (_nested_copy(v) if isinstance(v, dict) else v) for k, v in d.items()}


def keep_stated_impl(ex: Extraction, setup: Setup) -> None:
    """An answer that edits, in code, the module list of the graphs the user runs ("take moe_router
    out of the list") and names no implementation keeps the user's: it is judged with that impl, not
    as if graphs were off. A module list read from prose is not enough to go on."""
    if setup.graph_impl and not any(ex.config.has(k) for k in IMPL_KEYS) and \
            writes(ex.blocks, LIST_KEYS, suggested_only=True):
        ex.config.set("model.cuda_graph_impl", setup.graph_impl)


def with_stated_graphs(cfg: CanonicalConfig, setup: Setup) -> CanonicalConfig:
    """The stated config with the graphs of the run that failed, where the question names their
    modules in words and writes no module list: the fix of a diagnosis is laid over that run."""
    if setup.graph_impl and setup.graph_modules and not any(cfg.has(k) for k in LIST_KEYS):
        cfg.set("model.cuda_graph_impl", cfg.get("model.cuda_graph_impl") or setup.graph_impl)
        cfg.set("model.cuda_graph_scope" if setup.era == "legacy" else "model.cuda_graph_modules", list(setup.graph_modules))
    return cfg
