"""The models ``bench --mode inference`` serves, as data: sizes, layer pattern, config options.

Shared by the CLI side (``inference_runner``: names, dry runs, refusals) and the GPU side
(``inference_worker``: it turns a workload into a ``TransformerConfig`` + ``GPTModel`` or
``HybridModel``). Nothing here imports torch or megatron, so what a workload asks of
megatron-core, and whether the installed packages can build it, is checked without a GPU.

The non-dense workloads follow the model class of Megatron-LM PR #7772 (Nemotron text inference
graphs): hybrid layers with recurrent state, MoE with shared experts, an fp32 residual stream,
router expert biases restored from a checkpoint. Each names what megatron-core 0.19.2 needs to
build it (``requires``) with the source line that needs it.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
from dataclasses import dataclass, field
from typing import Any, Callable

from skill_tools.config.era import era_for

#: Packages a Mamba layer needs for dynamic-batching inference in megatron-core 0.19.2:
#: ``MambaMixer.__init__`` raises ImportError without mamba_ssm (megatron/core/ssm/mamba_mixer.py:202
#: @core_v0.19.0), and ``MambaMixer._dynamic_inference`` asserts these minimum versions
#: (``_check_mamba_sequence_packing_support``, mamba_mixer.py:1496-1505). The in-tree Triton
#: kernels of ``megatron/core/ssm/ops`` cover only the decode update (``causal_conv1d_update``,
#: ``selective_state_update``) and the varlen chunk scan; prefill still calls
#: ``causal_conv1d.causal_conv1d_varlen_states`` (mamba_mixer.py:871).
MAMBA_REQUIREMENTS = (
    ("mamba_ssm", "mamba-ssm", "2.2.6.post3", "megatron/core/ssm/mamba_mixer.py:202,1505"),
    ("causal_conv1d", "causal-conv1d", "1.5.3.post1", "megatron/core/ssm/mamba_mixer.py:871,1502"),
    ("einops", "einops", None, "megatron/core/ssm/mamba_mixer.py:207"),
)
#: Transformer Engine: the hybrid stack spec and the TE GPT spec build TE modules
#: (megatron/core/models/hybrid/hybrid_layer_specs.py:4-11).
TE_REQUIREMENT = (("transformer_engine", "transformer-engine", None, "megatron/core/models/hybrid/hybrid_layer_specs.py:4"),)

#: Layer symbols that need recurrent-state kernels (megatron/core/models/hybrid/hybrid_layer_allocation.py:17-18).
MAMBA_SYMBOL, GDN_SYMBOL = "M", "G"
#: Hybrid layer symbols whose first module is TE's fused LayerNorm+Linear fed the residual stream as
#: it is: attention (linear_qkv), gated delta net (in_proj) and MLP (linear_fc1) are TransformerLayers
#: with an IdentityOp norm in front (megatron/core/models/hybrid/hybrid_layer_specs.py:105-133,
#: 197-205 @core_v0.19.0). Mamba layers cast to params_dtype first (megatron/core/ssm/mamba_layer.py:147-152)
#: and MoE layers normalise with TENorm, which casts to its weight dtype, so "M" and "E" are not listed.
FUSED_NORM_SYMBOLS = "*G-"


@dataclass(frozen=True)
class Workload:
    """One model served by the dynamic engine."""

    name: str
    family: str  # "gpt" (GPTModel) or "hybrid" (HybridModel + hybrid layer pattern)
    layer_spec: str  # "local" (get_gpt_layer_local_spec), "te" (TE GPT spec) or "hybrid" (hybrid_stack_spec)
    num_layers: int
    hidden_size: int
    num_attention_heads: int
    ffn_hidden_size: int
    vocab_size: int = 1024
    prompt_len: int = 32
    pattern: str | None = None  # hybrid layer pattern, e.g. "M*E"
    config: dict[str, Any] = field(default_factory=dict)  # extra TransformerConfig fields
    restore_expert_bias: bool = False  # copy fp32 router expert biases in place before capture
    about: str = ""

    @property
    def moe(self) -> bool:
        return bool(self.config.get("num_moe_experts"))

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "family": self.family, "layer_spec": self.layer_spec,
                "num_layers": self.num_layers, "hidden_size": self.hidden_size,
                "num_attention_heads": self.num_attention_heads, "ffn_hidden_size": self.ffn_hidden_size,
                "vocab_size": self.vocab_size, "prompt_len": self.prompt_len, "pattern": self.pattern,
                "config": dict(self.config), "restore_expert_bias": self.restore_expert_bias}


_MOE = {"num_moe_experts": 4, "moe_router_topk": 2, "add_bias_linear": False}
#: Shared experts + sigmoid router with a (fp32) expert bias, as in DeepSeek-V3/Nemotron-style MoE.
_MOE_SHARED = {**_MOE, "moe_shared_expert_intermediate_size": 512, "moe_router_score_function": "sigmoid",
               "moe_router_enable_expert_bias": True, "moe_router_dtype": "fp32"}
_MAMBA = {"mamba_num_heads": 16, "mamba_head_dim": 32, "mamba_state_dim": 64, "mamba_num_groups": 8,
          "is_hybrid_model": True}

WORKLOADS: dict[str, Workload] = {w.name: w for w in (
    Workload("tiny-gpt", "gpt", "local", 8, 256, 8, 1024, about="dense GPT, local spec"),
    Workload("tiny-moe", "gpt", "local", 4, 256, 8, 512, config={**_MOE, "moe_token_dispatcher_type": "alltoall"},
             about="GPT + 4 experts top-2, EP=1"),
    Workload("tiny-moe-shared", "gpt", "local", 4, 256, 8, 512,
             config={**_MOE_SHARED, "moe_token_dispatcher_type": "alltoall"}, restore_expert_bias=True,
             about="GPT + 4 routed experts top-2 + a shared expert, sigmoid router with fp32 expert bias "
                   "restored in place before capture, EP=1"),
    Workload("tiny-fp32-residual", "gpt", "te", 8, 256, 8, 1024,
             config={"fp32_residual_connection": True, "normalization": "RMSNorm"},
             about="dense GPT with an fp32 residual stream into bf16 RMSNorm (TE spec)"),
    Workload("tiny-hybrid-moe", "hybrid", "hybrid", 4, 256, 16, 512, pattern="*E*E",
             config={**_MOE_SHARED, "moe_grouped_gemm": True, "moe_token_dispatcher_type": "alltoall",
                     "is_hybrid_model": True, "normalization": "RMSNorm"},
             restore_expert_bias=True,
             about="HybridModel, attention + MoE layers (pattern *E*E), shared experts, fp32 expert bias"),
    Workload("tiny-hybrid", "hybrid", "hybrid", 6, 256, 16, 512, pattern="M*EM*E",
             config={**_MOE_SHARED, **_MAMBA, "moe_grouped_gemm": True, "moe_token_dispatcher_type": "alltoall",
                     "fp32_residual_connection": True, "normalization": "RMSNorm"},
             restore_expert_bias=True,
             about="HybridModel Mamba + attention + MoE (pattern M*EM*E): recurrent state, shared experts, "
                   "fp32 residual stream, fp32 expert bias (the model class of PR #7772)"),
)}

#: ``bench --workload`` names (shared with training mode) -> inference workloads.
ALIASES = {"dense": "tiny-gpt", "moe": "tiny-moe"}


def get(name: str) -> Workload | None:
    return WORKLOADS.get(ALIASES.get(name, name))


def requirements(w: Workload) -> tuple[tuple[str, str, str | None, str], ...]:
    """(module, distribution, minimum version, source line that needs it) for a workload."""
    reqs: tuple = ()
    if w.layer_spec in ("te", "hybrid"):
        reqs += TE_REQUIREMENT
    if w.pattern and MAMBA_SYMBOL in w.pattern:
        reqs += MAMBA_REQUIREMENTS
    return reqs


def _version_key(v: str) -> tuple:
    return tuple(int(x) if x.isdigit() else x for x in re.split(r"[.+\-]", v.replace("post", "0.")))


def _installed(module: str, dist: str) -> str | None:
    if importlib.util.find_spec(module) is None:
        return None
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _fp32_residual_meets_te_fused_norm(w: Workload) -> bool:
    """Whether an fp32 residual stream reaches a TE fused LayerNorm+Linear uncast (see FUSED_NORM_SYMBOLS)."""
    if not w.config.get("fp32_residual_connection"):
        return False
    if w.layer_spec == "te":  # GPT TE spec: linear_qkv is TELayerNormColumnParallelLinear (gpt_layer_specs.py:324)
        return True
    return w.layer_spec == "hybrid" and any(s in (w.pattern or "") for s in FUSED_NORM_SYMBOLS)


def unavailable(w: Workload, installed: Callable[[str, str], str | None] = _installed) -> list[str]:
    """Why the installed packages cannot build ``w`` (empty when they can); one line per gap,
    each naming the package, the version needed and the megatron-core line that needs it."""
    out = []
    if w.config.get("fp32_residual_connection") and w.layer_spec == "local":
        out.append("fp32_residual_connection with the local spec: the residual stream is fp32 "
                   "(megatron/core/transformer/transformer_layer.py:653), torch's RMSNorm/LayerNorm keeps "
                   "fp32 with bf16 weights (megatron/core/transformer/torch_norm.py:57-63) and the local "
                   "ColumnParallelLinear then multiplies fp32 by bf16: 'expected m1 and m2 to have the same "
                   "dtype' (megatron/core/tensor_parallel/layers.py:576, megatron-core 0.19.2); the TE spec "
                   "(TELayerNormColumnParallelLinear) takes it only where megatron-core casts its input (after "
                   "core_v0.19.0, Megatron-LM PR #6272)")
    if _fp32_residual_meets_te_fused_norm(w):
        mcore = installed("megatron.core", "megatron-core")
        if mcore and mcore != "unknown" and not era_for(mcore).has("te_norm_linear_casts_fp32_input"):
            out.append(f"fp32_residual_connection with TE's fused LayerNorm+Linear on megatron-core {mcore}: the "
                       "fp32 stream (embeddings cast at megatron/core/models/common/embeddings/"
                       "language_model_embedding.py:135-136) reaches TELayerNormColumnParallelLinear, which does not "
                       "cast it (megatron/core/extensions/transformer_engine.py:1328-1336 @core_v0.19.0), and TE refuses "
                       "bf16 parameters outside torch.autocast: 'Data types for parameters must match when outside of "
                       "autocasted region' (transformer_engine/pytorch/module/base.py set_activation_dtype); "
                       "Megatron-LM main casts the input since commit 7a76dff (PR #6272), after core_v0.19.0")
    if w.pattern and GDN_SYMBOL in w.pattern:
        out.append("gated-delta-net layers have no inference path in megatron-core 0.19.2: GatedDeltaNet.forward "
                   "asserts static batching ('GDN does not currently support dynamic inference batching.', what the "
                   "dynamic engine hits) and then raises NotImplementedError('GDN does not support inference for "
                   "now.') for any inference context (megatron/core/ssm/gated_delta_net/gdn.py:87-93)")
    for module, dist, minimum, source in requirements(w):
        have = installed(module, dist)
        if have is None:
            out.append(f"{dist} is not installed ({source}"
                       + (f" needs >= {minimum}" if minimum else " imports it") + ")")
        elif minimum and have != "unknown" and _version_key(have) < _version_key(minimum):
            out.append(f"{dist} {have} is older than {minimum} ({source})")
    return out


def config_kwargs(w: Workload, graphed: bool, graph_shapes: bool) -> dict[str, Any]:
    """The workload's ``TransformerConfig`` fields other than dtypes and graph settings."""
    kw: dict[str, Any] = {"num_layers": w.num_layers, "hidden_size": w.hidden_size,
                          "num_attention_heads": w.num_attention_heads, "ffn_hidden_size": w.ffn_hidden_size,
                          "normalization": "LayerNorm",
                          "transformer_impl": "local" if w.layer_spec == "local" else "transformer_engine"}
    kw.update(w.config)
    if w.moe:
        # Pads each expert's tokens to the graph's static shape (megatron/core/transformer/
        # transformer_config.py field moe_pad_experts_for_cuda_graph_inference).
        kw["moe_pad_experts_for_cuda_graph_inference"] = graph_shapes
    return kw
