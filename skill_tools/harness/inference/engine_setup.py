"""The model, context and engine of one inference run (GPU side, imported by :mod:`.worker`).

Built the way ``tests/unit_tests/inference/engines/test_dynamic_engine.py`` (core_v0.19.0) builds
them: a ``GPTModel`` or ``HybridModel`` from the workload's config, then
``DynamicInferenceContext`` + ``GPTInferenceWrapper`` + ``TextGenerationController`` +
``DynamicInferenceEngine``; with a graphed scope the engine captures its decode graphs when it is
constructed.
"""

from __future__ import annotations

import argparse
import math
import os
import time
from typing import Any

import torch

from skill_tools.harness.inference import workloads as IW

#: Workload sizes as the worker's helpers read them (dicts); the definitions live in
#: :mod:`skill_tools.harness.inference.workloads` (CPU-importable, shared with the runner).
WORKLOADS: dict[str, dict[str, Any]] = {name: w.to_dict() for name, w in IW.WORKLOADS.items()}


def _init_distributed() -> None:
    if torch.distributed.is_initialized():
        return
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(29500 + os.getpid() % 2000))
    os.environ.setdefault("RANK", "0")
    os.environ.setdefault("WORLD_SIZE", "1")
    os.environ.setdefault("LOCAL_RANK", "0")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    torch.distributed.init_process_group(backend="nccl", init_method="env://")


def build_model(args: argparse.Namespace, workload: IW.Workload, graph_shapes: bool):
    """``GPTModel`` (local or TE spec) or ``HybridModel`` (``hybrid_stack_spec`` + layer pattern),
    built as tests/unit_tests/inference/engines/test_dynamic_engine.py ``_build_test_env`` does
    at core_v0.19.0 (lines 352-497)."""
    from megatron.core.transformer.transformer_config import TransformerConfig

    graphed = args.scope != "none"
    config = TransformerConfig(
        params_dtype=torch.bfloat16,
        pipeline_dtype=torch.bfloat16,  # fp32_residual_connection overrides it to fp32 (transformer_config.py:1303)
        bf16=True,
        use_cpu_initialization=True,  # identical weights in every process for a given seed
        cuda_graph_impl="local" if graphed else "none",
        inference_cuda_graph_scope=args.scope,
        inference_rng_tracker=True,
        inference_sampling_seed=args.seed,
        **IW.config_kwargs(workload, graphed, graph_shapes),
    )
    max_seq = workload.prompt_len + args.decode_tokens + 8
    experts = config.num_moe_experts
    if workload.family == "hybrid":
        from megatron.core.models.hybrid.hybrid_layer_specs import hybrid_stack_spec
        from megatron.core.models.hybrid.hybrid_model import HybridModel

        model = HybridModel(config=config, hybrid_stack_spec=hybrid_stack_spec, vocab_size=workload.vocab_size,
                            max_sequence_length=max_seq, parallel_output=True, hybrid_layer_pattern=workload.pattern,
                            pre_process=True, post_process=True)
    else:
        from megatron.core.models.gpt.gpt_layer_specs import (
            get_gpt_layer_local_spec,
            get_gpt_layer_with_transformer_engine_spec,
        )
        from megatron.core.models.gpt.gpt_model import GPTModel

        if workload.layer_spec == "te":
            spec = get_gpt_layer_with_transformer_engine_spec(num_experts=experts, moe_grouped_gemm=False)
        else:
            spec = get_gpt_layer_local_spec(num_experts=experts, moe_grouped_gemm=False,
                                            normalization=config.normalization)
        model = GPTModel(config=config, transformer_layer_spec=spec, vocab_size=workload.vocab_size,
                         max_sequence_length=max_seq, parallel_output=True, pre_process=True,
                         post_process=True, position_embedding_type="learned_absolute")
    model = model.cuda()
    for p in model.parameters():
        p.data = p.data.to(torch.bfloat16)
    model.eval()
    return model, config, max_seq


def restore_expert_bias(model, seed: int) -> dict[str, Any]:
    """Load fp32 router expert biases as a checkpoint would: ``copy_`` into the existing buffers,
    before the engine captures graphs (a replay reads the buffer address recorded at capture;
    a rebound attribute would be ignored by every replay). Returns what was restored."""
    layers, ptrs = [], {}
    g = torch.Generator().manual_seed(seed + 7)
    for name, mod in model.named_modules():
        bias = getattr(mod, "expert_bias", None)
        if not isinstance(bias, torch.Tensor):
            continue
        before = bias.data_ptr()
        with torch.no_grad():
            bias.copy_((torch.rand(bias.shape, generator=g) * 0.2 - 0.1).to(bias.dtype))
        ptrs[name] = before
        layers.append({"module": name, "dtype": str(bias.dtype).replace("torch.", ""),
                       "in_place": bias.data_ptr() == before, "max_abs": float(bias.abs().max())})
    return {"layers": layers, "ptrs": ptrs}


def expert_bias_after(model, restored: dict[str, Any]) -> list[dict[str, Any]]:
    """Whether each restored expert bias still sits at its captured address and dtype."""
    out = []
    mods = dict(model.named_modules())
    for name, ptr in restored.get("ptrs", {}).items():
        bias = mods[name].expert_bias
        out.append({"module": name, "dtype": str(bias.dtype).replace("torch.", ""), "same_address": bias.data_ptr() == ptr})
    return out


def enable_batch_invariance(model) -> None:
    """What Megatron-LM's GDP end-to-end test does (tests/unit_tests/inference/engines/
    test_gdp_cuda_graph_e2e.py:153-159 @main): the config flag and every Attention module's copy
    of it (read once in ``Attention.__init__``, attention.py:320), set after construction so the
    config's FlashAttention-3/4 check (transformer_config.py:2875) does not refuse the build; the
    kernels themselves are patched by ``set_batch_invariant_mode`` around the whole run."""
    from megatron.core.transformer.attention import Attention

    model.config.batch_invariant_mode = True
    for module in model.modules():
        if isinstance(module, Attention):
            module.batch_invariant_mode = True


def build_engine(args: argparse.Namespace, workload: IW.Workload):
    """The engine of test_dynamic_engine.py's ``_build_test_env``, sized for this benchmark."""
    from megatron.core import parallel_state
    from megatron.core.inference.config import InferenceConfig, MambaInferenceStateConfig
    from megatron.core.inference.contexts.dynamic_context import DynamicInferenceContext
    from megatron.core.inference.engines import DynamicInferenceEngine
    from megatron.core.inference.model_inference_wrappers.gpt.gpt_inference_wrapper import (
        GPTInferenceWrapper,
    )
    from megatron.core.inference.text_generation_controllers.text_generation_controller import (
        TextGenerationController,
    )
    from megatron.core.tensor_parallel.random import model_parallel_cuda_manual_seed
    from megatron.core.transformer.cuda_graphs import delete_cuda_graphs

    _init_distributed()
    if not parallel_state.model_parallel_is_initialized():
        parallel_state.initialize_model_parallel(1, 1)
    torch.manual_seed(args.seed)
    model_parallel_cuda_manual_seed(args.seed, inference_rng_tracker=True,
                                    use_cudagraphable_rng=False, force_reset_rng=True)

    graph_shapes = args.scope != "none" or args.eager_graph_shapes  # decode steps padded to the graph buckets
    model, config, max_seq = build_model(args, workload, graph_shapes)
    if args.batch_invariant:
        enable_batch_invariance(model)
    restored = restore_expert_bias(model, args.seed) if workload.restore_expert_bias else {}
    mamba_config = MambaInferenceStateConfig.from_model(model)  # None without Mamba layers

    max_requests = 4 * math.ceil(max(args.batch_sizes) / 4)  # DynamicInferenceContext.REQUEST_ROUNDER
    buffer_gb = args.buffer_gb or kv_buffer_gb(WORKLOADS[workload.name], max_requests, max_seq)
    if mamba_config is not None:
        buffer_gb += 0.25  # per-request conv/SSM state comes out of the same buffer
    context = DynamicInferenceContext(
        model_config=config,
        inference_config=InferenceConfig(
            max_sequence_length=max_seq,
            num_cuda_graphs=args.num_cuda_graphs if graph_shapes else None,
            use_cuda_graphs_for_non_decode_steps=False,  # decode-only graphs: what this bench measures
            buffer_size_gb=buffer_gb,
            block_size_tokens=256,
            max_requests=max_requests,
            unified_memory_level=0,
            static_kv_memory_pointers=True,
            materialize_only_last_token_logits=True,
            use_flashinfer_fused_rope=False,
            mamba_inference_state_config=mamba_config,
        ),
    )
    wrapped = GPTInferenceWrapper(model, context)
    wrapped.model_is_pipeline_parallel = False
    tokenizer = argparse.Namespace(vocab_size=workload.vocab_size, detokenize=lambda tokens: "")
    controller = TextGenerationController(inference_wrapped_model=wrapped, tokenizer=tokenizer)
    delete_cuda_graphs()
    torch.cuda.reset_peak_memory_stats()
    mem_before = torch.cuda.memory_allocated()
    t0 = time.perf_counter()
    engine = DynamicInferenceEngine(controller, context)  # captures the graphs when graphed
    build_s = time.perf_counter() - t0
    extras = {"expert_bias": restored.get("layers"), "mamba_state": mamba_config is not None,
              "residual_dtype": "fp32" if config.fp32_residual_connection else "bf16",
              "engine_allocated_bytes": torch.cuda.memory_allocated() - mem_before,
              "_restored": restored}
    return engine, model, context, config, build_s, extras


def kv_buffer_gb(workload: dict[str, Any], max_requests: int, max_seq: int, block_tokens: int = 256) -> float:
    """KV-cache budget for every request at full length, doubled for the paused pool and slack."""
    head_dim = workload["hidden_size"] // workload["num_attention_heads"]
    block_bytes = 2 * workload["num_layers"] * block_tokens * workload["num_attention_heads"] * head_dim * 2
    blocks = max_requests * math.ceil(max_seq / block_tokens) + 8
    return max(0.1, 2.0 * blocks * block_bytes / 1024**3)


