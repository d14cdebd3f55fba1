"""A plan's run shape and layout as what each engine is given: Megatron-LM flags, Bridge overrides.

Only the model's shape and its parallel layout come from here; data, iterations, learning rate
and logging stay the engine's. The flags are those that ran on the H200 for the real layer
shapes (``--swiglu --normalization RMSNorm --position-embedding-type rope --disable-bias-linear
--untie-embeddings-and-output-weights --group-query-attention ...``); Megatron-LM's own parser
judges every one in ``tests/plan/test_plan_render.py``.
"""

from __future__ import annotations

from skill_tools.config.shape import Layout, ModelShape

#: Activation -> Megatron-LM flag (gelu is the default and needs none).
_ACTIVATION_FLAGS = {"swiglu": ["--swiglu"], "squared_relu": ["--squared-relu"], "gelu": []}


def moe_layer_freq_flag(freq: int | list[int]) -> str:
    """``--moe-layer-freq`` value: an int, or Megatron-LM's ``([0]*1+[1]*3)`` list form."""
    if isinstance(freq, int):
        return str(freq)
    runs: list[tuple[int, int]] = []
    for x in freq:
        if runs and runs[-1][0] == x:
            runs[-1] = (x, runs[-1][1] + 1)
        else:
            runs.append((x, 1))
    return "(" + "+".join(f"[{x}]*{n}" for x, n in runs) + ")"


def megatron_lm_shape_flags(s: ModelShape, layout: Layout) -> list[str]:
    """Megatron-LM flags for the model shape and the layout (no data, loop or graph flags)."""
    flags = ["--num-layers", str(s.num_layers), "--hidden-size", str(s.hidden_size),
             "--ffn-hidden-size", str(s.ffn_hidden_size), "--num-attention-heads", str(s.num_attention_heads),
             "--seq-length", str(s.seq_length), "--max-position-embeddings", str(s.seq_length),
             "--micro-batch-size", str(s.micro_batch_size), "--vocab-size", str(s.vocab_size),
             "--normalization", s.normalization, "--position-embedding-type", s.position_embedding_type]
    if s.num_query_groups != s.num_attention_heads:
        flags += ["--group-query-attention", "--num-query-groups", str(s.num_query_groups)]
    if s.kv_channels != s.hidden_size // s.num_attention_heads:
        flags += ["--kv-channels", str(s.kv_channels)]
    flags += _ACTIVATION_FLAGS[s.activation]
    if s.qk_layernorm:
        flags.append("--qk-layernorm")
    if not s.add_bias_linear:
        flags.append("--disable-bias-linear")
    if s.untie_embeddings:
        flags.append("--untie-embeddings-and-output-weights")
    if s.is_moe:
        flags += ["--num-experts", str(s.num_experts), "--moe-router-topk", str(s.moe_router_topk),
                  "--moe-ffn-hidden-size", str(s.moe_ffn_hidden_size),
                  "--moe-token-dispatcher-type", s.moe_token_dispatcher_type,
                  "--moe-layer-freq", moe_layer_freq_flag(s.moe_layer_freq)]
        if s.moe_grouped_gemm:
            flags.append("--moe-grouped-gemm")
        if s.moe_expert_capacity_factor is not None:
            flags += ["--moe-expert-capacity-factor", str(s.moe_expert_capacity_factor)]
        if s.moe_pad_expert_input_to_capacity:
            flags.append("--moe-pad-expert-input-to-capacity")
        if s.moe_shared_expert_intermediate_size:
            flags += ["--moe-shared-expert-intermediate-size", str(s.moe_shared_expert_intermediate_size)]
    if s.precision == "fp8":
        fmt = "hybrid" if s.fp8_recipe in (None, "delayed", "tensorwise") else "e4m3"
        flags += ["--fp8-format", fmt, "--fp8-recipe", s.fp8_recipe or "delayed"]
    if s.recompute_granularity:
        flags += ["--recompute-granularity", s.recompute_granularity]
        if s.recompute_granularity == "full":
            flags += ["--recompute-method", s.recompute_method or "uniform",
                      "--recompute-num-layers", str(s.recompute_num_layers or 1)]
    flags += ["--tensor-model-parallel-size", str(layout.tp)]
    if layout.pp > 1:
        flags += ["--pipeline-model-parallel-size", str(layout.pp)]
    if layout.cp > 1:
        flags += ["--context-parallel-size", str(layout.cp)]
    if s.is_moe and layout.ep > 1:
        flags += ["--expert-model-parallel-size", str(layout.ep)]
    if s.is_moe and layout.etp != layout.tp:
        flags += ["--expert-tensor-parallel-size", str(layout.etp)]
    if layout.sequence_parallel and layout.tp > 1:
        flags.append("--sequence-parallel")
    return flags


def bridge_shape_overrides(s: ModelShape, layout: Layout) -> list[str]:
    """Hydra overrides of a Bridge ``ConfigContainer`` for the model shape and the layout. The
    activation function is a callable Hydra cannot spell: :func:`activation_callable` names it."""
    out = [f"model.num_layers={s.num_layers}", f"model.hidden_size={s.hidden_size}",
           f"model.ffn_hidden_size={s.ffn_hidden_size}", f"model.num_attention_heads={s.num_attention_heads}",
           f"model.num_query_groups={s.num_query_groups}", f"model.kv_channels={s.kv_channels}",
           f"model.seq_length={s.seq_length}", f"dataset.seq_length={s.seq_length}",
           f"model.vocab_size={s.vocab_size}", f"tokenizer.vocab_size={s.vocab_size}",
           f"train.micro_batch_size={s.micro_batch_size}", f"model.normalization={s.normalization}",
           f"model.gated_linear_unit={str(s.gated).lower()}",
           f"model.position_embedding_type={s.position_embedding_type}",
           f"model.qk_layernorm={str(s.qk_layernorm).lower()}", f"model.add_bias_linear={str(s.add_bias_linear).lower()}",
           f"model.share_embeddings_and_output_weights={str(not s.untie_embeddings).lower()}",
           f"model.tensor_model_parallel_size={layout.tp}", f"model.pipeline_model_parallel_size={layout.pp}",
           f"model.context_parallel_size={layout.cp}", f"model.sequence_parallel={str(layout.sequence_parallel).lower()}"]
    if s.is_moe:
        out += [f"model.num_moe_experts={s.num_experts}", f"model.moe_router_topk={s.moe_router_topk}",
                f"model.moe_ffn_hidden_size={s.moe_ffn_hidden_size}",
                f"model.moe_token_dispatcher_type={s.moe_token_dispatcher_type}",
                f"model.moe_grouped_gemm={str(s.moe_grouped_gemm).lower()}",
                f"model.moe_expert_capacity_factor={'null' if s.moe_expert_capacity_factor is None else s.moe_expert_capacity_factor}",
                f"model.moe_pad_expert_input_to_capacity={str(s.moe_pad_expert_input_to_capacity).lower()}",
                f"model.expert_model_parallel_size={layout.ep}", f"model.expert_tensor_parallel_size={layout.etp}",
                "model.moe_layer_freq=" + (str(s.moe_layer_freq) if isinstance(s.moe_layer_freq, int)
                                           else "[" + ",".join(map(str, s.moe_layer_freq)) + "]")]
        if s.moe_shared_expert_intermediate_size:
            out.append(f"model.moe_shared_expert_intermediate_size={s.moe_shared_expert_intermediate_size}")
    if s.recompute_granularity:
        out.append(f"model.recompute_granularity={s.recompute_granularity}")
        if s.recompute_granularity == "full":
            out += [f"model.recompute_method={s.recompute_method or 'uniform'}",
                    f"model.recompute_num_layers={s.recompute_num_layers or 1}"]
    return out


def activation_callable(s: ModelShape) -> str:
    """The ``torch.nn.functional`` function the engine sets as ``activation_func`` on Bridge's provider."""
    return {"swiglu": "silu", "geglu": "gelu", "squared_relu": "relu", "relu": "relu"}.get(s.activation, "gelu")
