"""The user's model as shapes and a parallel layout: pure data read from the canonical config.

A bench or precheck plan runs *the user's* layer shape, so every field says where its value came
from: the config key or flag that set it (``--hidden-size (train.sh:14)``), a recipe table
citation, or ``default: ...`` when the config left it to megatron-core's default. Nothing here
imports torch; :class:`ModelShape` and :class:`Layout` are frozen and JSON-ready.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields, replace
from typing import Any, Mapping

from skill_tools.config.model import CanonicalConfig

#: Where a value came from when the config did not set it.
DEFAULT = "default"


@dataclass(frozen=True)
class ModelShape:
    """One model's shapes: what the layers, the embedding and one micro-batch look like."""

    num_layers: int
    hidden_size: int
    ffn_hidden_size: int
    num_attention_heads: int
    num_query_groups: int
    kv_channels: int
    seq_length: int
    vocab_size: int
    micro_batch_size: int = 1
    normalization: str = "LayerNorm"
    activation: str = "gelu"  # gelu | swiglu | geglu | squared_relu | relu
    position_embedding_type: str = "learned_absolute"
    qk_layernorm: bool = False
    add_bias_linear: bool = True
    untie_embeddings: bool = False
    multi_latent_attention: bool = False
    num_experts: int | None = None
    moe_router_topk: int = 2
    moe_ffn_hidden_size: int | None = None
    moe_token_dispatcher_type: str = "allgather"
    moe_grouped_gemm: bool = False
    moe_expert_capacity_factor: float | None = None
    moe_pad_expert_input_to_capacity: bool = False
    moe_shared_expert_intermediate_size: int | None = None
    moe_layer_freq: int | list[int] = 1
    hybrid_layer_pattern: str | None = None
    mamba_state_dim: int | None = None
    mamba_head_dim: int | None = None
    mamba_num_groups: int | None = None
    mamba_num_heads: int | None = None
    precision: str = "bf16"  # bf16 | fp16 | fp32 | fp8
    fp8_recipe: str | None = None
    recompute_granularity: str | None = None
    recompute_method: str | None = None
    recompute_num_layers: int | None = None
    #: field name -> where its value came from (config key/flag with location, recipe, or default)
    origin: Mapping[str, str] = field(default_factory=dict, compare=False)

    @property
    def is_moe(self) -> bool:
        return bool(self.num_experts and self.num_experts > 1)

    @property
    def gated(self) -> bool:
        return self.activation in ("swiglu", "geglu")

    def moe_layers(self) -> list[bool]:
        """Which layers are MoE layers (MCore's ``moe_layer_freq``: an int period or a 0/1 list)."""
        if not self.is_moe:
            return [False] * self.num_layers
        freq = self.moe_layer_freq
        if isinstance(freq, list):
            return [bool(x) for x in freq[: self.num_layers]]
        return [i % int(freq) == 0 for i in range(self.num_layers)]

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "origin"}
        out["origin"] = dict(self.origin)
        return out

    def with_values(self, **changes: Any) -> "ModelShape":
        return replace(self, **changes)


@dataclass(frozen=True)
class Layout:
    """Parallel sizes (``dp``/``nproc`` are None where the input does not say how many GPUs)."""

    tp: int = 1
    pp: int = 1
    vpp: int | None = None
    ep: int = 1
    etp: int = 1
    cp: int = 1
    dp: int | None = None
    nproc: int | None = None
    sequence_parallel: bool = False
    origin: Mapping[str, str] = field(default_factory=dict, compare=False)

    @property
    def model_parallel(self) -> int:
        return self.tp * self.pp * self.cp

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "origin"}
        out["origin"] = dict(self.origin)
        return out


# --------------------------------------------------------------------------------------------
# reading
# --------------------------------------------------------------------------------------------


def _where(cfg: CanonicalConfig, key: str) -> str:
    loc = cfg.location(key)
    name = key
    if cfg.fmt == "megatron_lm":
        name = _flag_for(key)
    elif cfg.fmt == "run_script":
        name = key.rsplit(".", 1)[-1]
    return f"{name} ({loc})"


#: Canonical keys whose Megatron-LM flag is not ``--<field-with-dashes>``.
_FLAG_NAMES = {
    "model.num_moe_experts": "--num-experts", "dataset.seq_length": "--seq-length",
    "model.seq_length": "--seq-length", "tokenizer.vocab_size": "--vocab-size",
    "train.micro_batch_size": "--micro-batch-size", "model.add_bias_linear": "--disable-bias-linear",
    "model.share_embeddings_and_output_weights": "--untie-embeddings-and-output-weights",
    "model.fp8": "--fp8-format", "model.bf16": "--bf16", "model.fp16": "--fp16",
    "model.recompute_granularity": "--recompute-granularity",
}


def _flag_for(key: str) -> str:
    return _FLAG_NAMES.get(key, "--" + key.rsplit(".", 1)[-1].replace("_", "-"))


class _Reader:
    """First key that the config sets wins; its origin is recorded, else the default's reason."""

    def __init__(self, cfg: CanonicalConfig, fallback: Mapping[str, tuple[Any, str]] | None = None):
        self.cfg = cfg
        self.fallback = fallback or {}
        self.origin: dict[str, str] = {}

    def get(self, name: str, keys: tuple[str, ...], default: Any, why: str = "megatron-core default") -> Any:
        for key in keys:
            if self.cfg.has(key) and self.cfg.get(key) is not None:
                self.origin[name] = _where(self.cfg, key)
                return self.cfg.get(key)
        for key in keys:
            short = key.rsplit(".", 1)[-1]
            if short in self.fallback and self.fallback[short][0] is not None:
                value, cite = self.fallback[short]
                self.origin[name] = cite
                return value
        self.origin[name] = f"{DEFAULT}: {why}"
        return default

    def set_origin(self, name: str, text: str) -> None:
        self.origin[name] = text


def _int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    try:
        out = int(value)
    except ValueError:
        raise ValueError(f"{name} must be an integer, got {value!r}") from None
    if out != float(value):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    return out


def _activation(r: _Reader) -> str:
    cfg = r.cfg
    for key, name in (("model.swiglu", "swiglu"), ("model.squared_relu", "squared_relu")):
        if cfg.get(key) is True:
            r.set_origin("activation", _where(cfg, key))
            return name
    gated = r.get("gated_linear_unit", ("model.gated_linear_unit",), False)
    func = str(r.get("activation_func", ("model.activation_func",), "gelu") or "gelu").rsplit(".", 1)[-1].lower()
    origin = r.origin.pop("activation_func")
    gated_origin = r.origin.pop("gated_linear_unit")
    base = {"silu": "swiglu", "gelu": "geglu"}.get(func) if gated else None
    name = base or ("squared_relu" if "squared_relu" in func else "relu" if func == "relu" else "gelu")
    r.set_origin("activation", origin if not origin.startswith(DEFAULT) else gated_origin)
    return name


def _precision(r: _Reader) -> tuple[str, str | None]:
    cfg = r.cfg
    fp8 = r.get("precision", ("model.fp8", "mixed_precision.fp8"), None, "bf16 where the config names no fp8")
    if fp8 not in (None, False, "", "none"):
        recipe = r.get("fp8_recipe", ("model.fp8_recipe", "mixed_precision.fp8_recipe"), "delayed",
                       "megatron-core default fp8 recipe")
        return "fp8", str(recipe)
    mp = cfg.get("mixed_precision")
    if isinstance(mp, str) and mp:
        r.set_origin("precision", _where(cfg, "mixed_precision"))
        return ("fp8" if "fp8" in mp else "fp16" if "16" in mp and "bf16" not in mp else "bf16"), (
            mp if "fp8" in mp else None)
    for key, name in (("model.bf16", "bf16"), ("mixed_precision.bf16", "bf16"), ("model.fp16", "fp16"),
                      ("mixed_precision.fp16", "fp16")):
        if cfg.get(key) is True:
            r.set_origin("precision", _where(cfg, key))
            return name, None
    r.set_origin("precision", f"{DEFAULT}: bf16 (the harness trains bf16; the config names no precision)")
    return "bf16", None


def read_shape(cfg: CanonicalConfig, fallback: Mapping[str, tuple[Any, str]] | None = None) -> ModelShape:
    """The model shape of ``cfg``; ``fallback`` maps field names to (value, citation) for values a
    named recipe supplies. ValueError names the field that is missing or malformed."""
    r = _Reader(cfg, fallback)
    missing = [k for k, keys in (("num_layers", ("model.num_layers",)), ("hidden_size", ("model.hidden_size",)),
                                 ("num_attention_heads", ("model.num_attention_heads",)),
                                 ("seq_length", ("model.seq_length", "dataset.seq_length")))
               if not any(cfg.get(x) is not None for x in keys) and (fallback or {}).get(k, (None,))[0] is None]
    if missing:
        raise ValueError("the config does not set " + ", ".join(missing) + " (the layer shape needs them)")
    layers = _int(r.get("num_layers", ("model.num_layers",), None), "num_layers")
    hidden = _int(r.get("hidden_size", ("model.hidden_size",), None), "hidden_size")
    heads = _int(r.get("num_attention_heads", ("model.num_attention_heads",), None), "num_attention_heads")
    ffn = _int(r.get("ffn_hidden_size", ("model.ffn_hidden_size",), 4 * hidden, "4 x hidden_size"), "ffn_hidden_size")
    gqa_off = cfg.fmt == "megatron_lm" and cfg.get("model.group_query_attention") is not True
    groups = r.get("num_query_groups", ("model.num_query_groups",), heads, "num_attention_heads (no GQA)")
    if gqa_off and cfg.has("model.num_query_groups"):
        r.set_origin("num_query_groups", f"{DEFAULT}: num_attention_heads (--num-query-groups is read only with "
                                         "--group-query-attention)")
        groups = heads
    kv = r.get("kv_channels", ("model.kv_channels",), hidden // max(heads, 1), "hidden_size / num_attention_heads")
    seq = _int(r.get("seq_length", ("model.seq_length", "dataset.seq_length"), None), "seq_length")
    vocab = r.get("vocab_size", ("tokenizer.vocab_size", "model.vocab_size"), 32768,
                  "32768 (the config's tokenizer decides the real vocabulary; set --vocab-size to use yours)")
    values: dict[str, Any] = dict(
        num_layers=layers, hidden_size=hidden, ffn_hidden_size=ffn, num_attention_heads=heads,
        num_query_groups=_int(groups, "num_query_groups"), kv_channels=_int(kv, "kv_channels"), seq_length=seq,
        vocab_size=_int(vocab, "vocab_size"),
        micro_batch_size=_int(r.get("micro_batch_size", ("train.micro_batch_size",), 1, "1"), "micro_batch_size"),
        normalization=str(r.get("normalization", ("model.normalization",), "LayerNorm")),
        activation=_activation(r),
        qk_layernorm=bool(r.get("qk_layernorm", ("model.qk_layernorm",), False)),
        add_bias_linear=bool(r.get("add_bias_linear", ("model.add_bias_linear",), True)),
        untie_embeddings=not bool(r.get("untie_embeddings", ("model.share_embeddings_and_output_weights",), True,
                                        "tied input and output embeddings")),
        multi_latent_attention=bool(r.get("multi_latent_attention", ("model.multi_latent_attention",), False)),
    )
    pos = r.get("position_embedding_type", ("model.position_embedding_type",), "learned_absolute")
    if cfg.get("model.use_rotary_position_embeddings") is True:
        pos = "rope"
        r.set_origin("position_embedding_type", _where(cfg, "model.use_rotary_position_embeddings"))
    values["position_embedding_type"] = str(pos)
    experts = r.get("num_experts", ("model.num_moe_experts",), None, "dense (no experts)")
    values["num_experts"] = None if experts in (None, 0) else _int(experts, "num_experts")
    moe = values["num_experts"] is not None and values["num_experts"] > 1
    why = "megatron-core default" if moe else "dense model"
    values.update(
        moe_router_topk=_int(r.get("moe_router_topk", ("model.moe_router_topk",), 2, why), "moe_router_topk"),
        moe_ffn_hidden_size=r.get("moe_ffn_hidden_size", ("model.moe_ffn_hidden_size",), ffn if moe else None,
                                  "ffn_hidden_size" if moe else why),
        moe_token_dispatcher_type=str(r.get("moe_token_dispatcher_type", ("model.moe_token_dispatcher_type",),
                                            "allgather", why)),
        moe_grouped_gemm=bool(r.get("moe_grouped_gemm", ("model.moe_grouped_gemm",), False, why)),
        moe_expert_capacity_factor=r.get("moe_expert_capacity_factor", ("model.moe_expert_capacity_factor",),
                                         None, "dropless" if moe else why),
        moe_pad_expert_input_to_capacity=bool(r.get("moe_pad_expert_input_to_capacity",
                                                    ("model.moe_pad_expert_input_to_capacity",), False, why)),
        moe_shared_expert_intermediate_size=r.get("moe_shared_expert_intermediate_size",
                                                  ("model.moe_shared_expert_intermediate_size",), None,
                                                  "no shared expert"),
        moe_layer_freq=_layer_freq(r.get("moe_layer_freq", ("model.moe_layer_freq",), 1, why)),
        hybrid_layer_pattern=r.get("hybrid_layer_pattern", ("model.hybrid_layer_pattern",
                                                            "model.hybrid_override_pattern"), None, "not hybrid"),
    )
    for dim in ("mamba_state_dim", "mamba_head_dim", "mamba_num_groups", "mamba_num_heads"):
        values[dim] = r.get(dim, (f"model.{dim}",), None, "not set (megatron-core default when Mamba layers exist)")
    values["precision"], values["fp8_recipe"] = _precision(r)
    values["recompute_granularity"] = r.get("recompute_granularity", ("model.recompute_granularity",), None,
                                            "no recompute")
    values["recompute_method"] = r.get("recompute_method", ("model.recompute_method",), None, "no recompute")
    values["recompute_num_layers"] = r.get("recompute_num_layers", ("model.recompute_num_layers",), None,
                                           "no recompute")
    return ModelShape(**values, origin=dict(r.origin))


def _layer_freq(value: Any) -> int | list[int]:
    """``moe_layer_freq`` as an int or a 0/1 list; Megatron-LM's string form ``([0]*3+[1]*45)`` is
    evaluated by a tiny grammar here (lists, ``*`` and ``+`` of literals), never by Python."""
    if isinstance(value, list):
        return [int(bool(x)) for x in value]
    if isinstance(value, str):
        text = value.strip().strip("'\"").replace(" ", "")
        if re.fullmatch(r"\d+", text):
            return int(text)
        out: list[int] = []
        for part in text.strip("()").split("+"):
            m = re.fullmatch(r"\[([01](?:,[01])*)\](?:\*(\d+))?", part)
            if not m:
                raise ValueError(f"moe_layer_freq {value!r}: expected an int, a 0/1 list or ([0]*k+[1]*n)")
            out.extend([int(x) for x in m.group(1).split(",")] * int(m.group(2) or 1))
        return out
    return _int(value, "moe_layer_freq")


def read_layout(cfg: CanonicalConfig, fallback: Mapping[str, tuple[Any, str]] | None = None,
                nproc: tuple[int, str] | None = None) -> Layout:
    """The parallel layout of ``cfg``; ``nproc`` is (world size, where it came from) when known."""
    r = _Reader(cfg, fallback)
    tp = _int(r.get("tp", ("model.tensor_model_parallel_size",), 1, "1"), "tensor_model_parallel_size")
    pp = _int(r.get("pp", ("model.pipeline_model_parallel_size",), 1, "1"), "pipeline_model_parallel_size")
    cp = _int(r.get("cp", ("model.context_parallel_size",), 1, "1"), "context_parallel_size")
    ep = _int(r.get("ep", ("model.expert_model_parallel_size",), 1, "1"), "expert_model_parallel_size")
    etp = _int(r.get("etp", ("model.expert_tensor_parallel_size",), tp, "tensor_model_parallel_size"),
               "expert_tensor_parallel_size")
    vpp = r.get("vpp", ("model.virtual_pipeline_model_parallel_size",), None, "no virtual pipeline")
    per_stage = cfg.get("model.num_layers_per_virtual_pipeline_stage")
    if vpp is None and per_stage and cfg.get("model.num_layers"):
        vpp = int(cfg.get("model.num_layers")) // (pp * int(per_stage))
        r.set_origin("vpp", _where(cfg, "model.num_layers_per_virtual_pipeline_stage"))
    sp = bool(r.get("sequence_parallel", ("model.sequence_parallel",), False, "off"))
    world, dp = None, None
    if nproc is not None:
        world = nproc[0]
        r.set_origin("nproc", nproc[1])
        if world % (tp * pp * cp) == 0:
            dp = world // (tp * pp * cp)
            r.set_origin("dp", f"nproc / (tp*pp*cp) = {world} / {tp * pp * cp}")
    else:
        r.set_origin("nproc", f"{DEFAULT}: not in the config (the launcher decides)")
        r.set_origin("dp", f"{DEFAULT}: unknown without the number of GPUs")
    return Layout(tp=tp, pp=pp, vpp=None if vpp is None else _int(vpp, "vpp"), ep=ep, etp=etp, cp=cp, dp=dp,
                  nproc=world, sequence_parallel=sp, origin=dict(r.origin))


_NPROC = re.compile(r"--nproc[-_]per[-_]node(?:=|\s+)(\S+)")
_NNODES = re.compile(r"--nnodes(?:=|\s+)(\S+)")


def launcher_world(text: str, source: str) -> tuple[int, str] | None:
    """World size from a launch script's torchrun/srun words (``--nproc-per-node 8 --nnodes 2``,
    with ``GPUS_PER_NODE=8``-style variables the script assigns), or None."""
    assigned = dict(re.findall(r"^\s*(?:export\s+)?([A-Za-z_]\w*)=(\d+)\s*$", text, re.M))

    def value(word: str) -> int | None:
        word = word.strip("'\"")
        m = re.fullmatch(r"\$\{?(\w+)\}?", word)
        word = assigned.get(m.group(1), "") if m else word
        return int(word) if word.isdigit() else None

    m = _NPROC.search(text)
    if not m or value(m.group(1)) is None:
        return None
    per_node = value(m.group(1))
    nodes_m = _NNODES.search(text)
    nodes = value(nodes_m.group(1)) if nodes_m else 1
    nodes = nodes or 1
    line = text[: m.start()].count("\n") + 1
    return per_node * nodes, f"torchrun --nproc-per-node {per_node} x --nnodes {nodes} ({source}:{line})"
