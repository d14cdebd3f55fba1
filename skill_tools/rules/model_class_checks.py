"""Checks for models that megatron-core's inference path cannot run at all, graphed or eager:
the hybrid/linear-attention and fp32-residual model class (Nemotron-style) that decode graphs are
asked for. TransformerConfig accepts these configs; the failure comes at the first forward, so
the only place to catch it before a GPU run is here.

What fires is read from megatron-core's source (each rule's citation in catalog.yaml); the local-spec
fp32 failure is reproduced on CPU by tests/harness/test_inference_workloads.py.
"""

from __future__ import annotations

from typing import Any, Iterator

from skill_tools.config.model import as_name_list
from skill_tools.rules.context import Ctx


def serves_inference(ctx: Ctx) -> bool:
    """The config asks for inference: an explicit inference graph scope, the deprecated
    ``full_iteration_inference`` scope, or Megatron-LM inference flags (the ``inference`` section).
    An unset scope is not enough: with ``cuda_graph_impl='local'`` it defaults to 'layer' in training
    configs too (cuda_graph_config.py l.62-70 @core_v0.19.0)."""
    names = as_name_list(ctx.cfg.get("model.cuda_graph_scope")) + as_name_list(ctx.cfg.get("model.cuda_graph_modules"))
    return (ctx.cfg.get("model.inference_cuda_graph_scope") in ("layer", "block")
            or "full_iteration_inference" in names or bool(ctx.cfg.section("inference")))


def inference_gdn_layers(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if not serves_inference(ctx):
        return
    for key in ("hybrid_layer_pattern", "hybrid_override_pattern"):
        pattern = ctx.model.get(key)
        if isinstance(pattern, str) and "G" in pattern:
            yield {"where": f"{key}={pattern!r}", "version": ctx.era.mcore_version, "keys": [f"model.{key}"]}
            return
    if ctx.model.get("experimental_attention_variant") == "gated_delta_net":
        yield {"where": "experimental_attention_variant='gated_delta_net'", "version": ctx.era.mcore_version,
               "keys": ["model.experimental_attention_variant"]}


def _low_precision(ctx: Ctx) -> str | None:
    """'bf16' / 'fp16' when the weights are, from Megatron-LM flags, TransformerConfig fields or a
    Bridge mixed-precision recipe name."""
    mp = ctx.cfg.get("mixed_precision")
    for name in ("bf16", "fp16"):
        if ctx.model.get(name) or ctx.cfg.get(f"mixed_precision.{name}") or (isinstance(mp, str) and mp.startswith(name)):
            return name
    dtype = str(ctx.model.get("params_dtype") or "")
    return {"bfloat16": "bf16", "float16": "fp16"}.get(dtype.replace("torch.", ""))


def fp32_residual_dtype_mismatch(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if not ctx.model.get("fp32_residual_connection") or ctx.era.has("te_norm_casts_fp32_residual"):
        return  # Megatron-LM main (0.20 dev) casts the TE input (commit 7a76dff, PR #6272)
    precision = _low_precision(ctx)
    inference = serves_inference(ctx)
    if precision is None or not (inference or ctx.graphs_on) or (ctx.model.get("enable_autocast") and not inference):
        return
    impl = ctx.model.get("transformer_impl")
    if impl == "transformer_engine":
        failure = ("TELayerNormColumnParallelLinear hands the fp32 stream to TE, which raises 'TypeError: Data types "
                   "for parameters must match when outside of autocasted region'")
    elif impl == "local":
        failure = ("the torch norm keeps fp32 and ColumnParallelLinear raises 'expected m1 and m2 to have the same "
                   "dtype'")
    else:
        return
    yield {"precision": precision, "spec": impl, "version": ctx.era.mcore_version, "failure": failure}
