"""GPU side of ``skill-tools bench --mode inference``: one inference-graph scope per process.

Builds one of the workloads of :mod:`skill_tools.harness.inference_workloads` (a tiny GPT, MoE
with or without shared experts, an fp32 residual stream, a ``HybridModel`` with attention, MoE and
Mamba layers) and serves it through Megatron-Core's own dynamic inference
stack — ``DynamicInferenceContext`` + ``GPTInferenceWrapper`` + ``TextGenerationController`` +
``DynamicInferenceEngine`` (the set-up of ``tests/unit_tests/inference/engines/
test_dynamic_engine.py`` at core_v0.19.0). With ``--scope layer|block`` the model uses
``cuda_graph_impl="local"`` and the engine captures decode-only graphs for the batch buckets
of ``batch_dimensions_utils.py`` (``num_cuda_graphs=-1``) when it is constructed. Then, for each
batch size, it runs warm-up generations and timed generations (prefill + N greedy decode tokens),
timing every engine step and every model forward, and writes one JSON file that the runner
(``inference_runner.py``) turns into statistics, parity verdicts and reports.

This is the only module of the inference benchmark that imports torch at module level; it is
started in its own process by ``skill_tools.harness.isolation.run_isolated``.

Parity at equal shapes: a graph replays its decode step at the bucket's padded batch size, while
eager pads to ``TOKEN_ROUNDER`` tokens, and bf16 kernels can round differently at different
batch shapes. ``--scope none --eager-graph-shapes`` builds the eager model with the graphed runs'
bucket list, so MCore pads every eager decode step to the same bucket a graph would replay
(``DynamicInferenceContext.initialize_attention_state``) and the only difference left is replay.
Replays are counted from ``torch.cuda.CUDAGraph.replay`` itself, never inferred from the context.
``--batch-invariant`` runs everything under megatron-core's ``set_batch_invariant_mode`` (as the
GDP end-to-end test does), so tokens can be compared at natural, unpadded eager shapes too.

A workload the installed packages cannot build (Mamba layers without mamba_ssm/causal_conv1d, a
gated-delta-net layer, ...) is not attempted: the worker writes ``{"unavailable": [reasons]}``
naming each missing package and the megatron-core line that needs it, and exits 0.

Flash-attention: MCore's dynamic-batching attention (``Attention.flash_decode_and_prefill``)
calls ``flash_attn_with_kvcache``/``flash_attn_varlen_func`` and asserts flash-attn >= 2.7.3.
Where no flash-attn is installed, ``--attention auto`` substitutes the paged-attention functions
below (plain PyTorch, static shapes, no host syncs in the decode path, so they are capturable)
and records that in the output: absolute times then include a slower attention than production.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import platform
import sys
import time
from typing import Any

import torch

from skill_tools.harness import inference_workloads as IW
from skill_tools.harness.graph_counter import GraphCounter

# --------------------------------------------------------------------------------------------
# Paged attention in plain PyTorch (same contract as flash-attn's kv-cache entry points)
# --------------------------------------------------------------------------------------------


def _gather_pages(cache: torch.Tensor, block_table: torch.Tensor) -> torch.Tensor:
    """[blocks, block_size, H, D] paged cache + [B, max_blocks] table -> [B, max_blocks*block_size, H, D]."""
    pages = cache[block_table.long().clamp(min=0)]  # [B, MB, BS, H, D]
    b, mb, bs = pages.shape[:3]
    return pages.reshape(b, mb * bs, *cache.shape[2:])


def paged_attn_with_kvcache(
    q: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    cache_seqlens: torch.Tensor,
    softmax_scale: float | None = None,
    causal: bool = True,
    window_size: tuple[int, int] = (-1, -1),
    block_table: torch.Tensor | None = None,
    num_splits: int = 0,
    return_softmax_lse: bool = False,
    **_: Any,
):
    """Decode attention over a paged KV cache: q [B, Sq, H, D] -> [B, Sq, H, D].

    Static shapes and no host synchronisation, so it can be captured in a CUDA graph. Padded
    rows (cache_seqlens == 0) get a uniform softmax instead of NaNs.
    """
    if window_size not in ((-1, -1), [-1, -1], None):
        raise NotImplementedError("the PyTorch paged-attention fallback has no sliding window")
    k = _gather_pages(k_cache, block_table)
    v = _gather_pages(v_cache, block_table)
    sq, kv_len = q.shape[1], k.shape[1]
    scale = softmax_scale if softmax_scale is not None else q.shape[-1] ** -0.5
    scores = torch.einsum("bqhd,bkhd->bhqk", q.float(), k.float()) * scale
    pos_k = torch.arange(kv_len, device=q.device)
    lens = cache_seqlens.to(torch.long)
    mask = pos_k[None, :] >= lens[:, None]  # [B, K]: beyond the cached length
    mask = mask[:, None, None, :]
    if causal and sq > 1:  # query j sits at absolute position len - sq + j
        pos_q = lens[:, None] - sq + torch.arange(sq, device=q.device)[None, :]  # [B, Sq]
        mask = mask | (pos_k[None, None, :] > pos_q[:, :, None])[:, None, :, :]
    scores = scores.masked_fill(mask, -1e30)
    lse = torch.logsumexp(scores, dim=-1)  # [B, H, Sq]
    out = torch.einsum("bhqk,bkhd->bqhd", torch.softmax(scores, dim=-1), v.float()).to(q.dtype)
    return (out, lse) if return_softmax_lse else out


def paged_attn_varlen(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    cu_seqlens_q: torch.Tensor,
    cu_seqlens_k: torch.Tensor,
    max_seqlen_q: int | None = None,
    max_seqlen_k: int | None = None,
    softmax_scale: float | None = None,
    causal: bool = True,
    window_size: tuple[int, int] = (-1, -1),
    block_table: torch.Tensor | None = None,
    return_attn_probs: bool = False,
    **_: Any,
):
    """Prefill/mixed attention, q [T, H, D] packed by ``cu_seqlens_q``; k/v paged when
    ``block_table`` is given, else packed by ``cu_seqlens_k``. Eager only (reads lengths on
    the host), which is what MCore does when no non-decode graphs are captured."""
    if window_size not in ((-1, -1), [-1, -1], None):
        raise NotImplementedError("the PyTorch paged-attention fallback has no sliding window")
    scale = softmax_scale if softmax_scale is not None else q.shape[-1] ** -0.5
    out = torch.zeros_like(q)
    lse = torch.full((q.shape[1], q.shape[0]), float("-inf"), device=q.device, dtype=torch.float32)
    cq = cu_seqlens_q.tolist()
    ck = cu_seqlens_k.tolist()
    for i in range(len(cq) - 1):
        q0, q1 = cq[i], cq[i + 1]
        if q1 <= q0:
            continue
        kv_len = ck[i + 1] - ck[i]
        if block_table is not None:
            ki = _gather_pages(k, block_table[i : i + 1])[0, :kv_len]
            vi = _gather_pages(v, block_table[i : i + 1])[0, :kv_len]
        else:
            ki, vi = k[ck[i] : ck[i + 1]], v[ck[i] : ck[i + 1]]
        qi = q[q0:q1].float()
        s = torch.einsum("qhd,khd->hqk", qi, ki.float()) * scale
        if causal:
            pos_q = kv_len - (q1 - q0) + torch.arange(q1 - q0, device=q.device)
            s = s.masked_fill(torch.arange(kv_len, device=q.device)[None, :] > pos_q[:, None], -1e30)
        lse[:, q0:q1] = torch.logsumexp(s, dim=-1)
        out[q0:q1] = torch.einsum("hqk,khd->qhd", torch.softmax(s, dim=-1), vi.float()).to(q.dtype)
    return (out, lse, None) if return_attn_probs else out


def install_attention(mode: str) -> str:
    """Make MCore's dynamic-batching attention runnable; returns what is used."""
    import megatron.core.transformer.attention as attention

    have_flash = bool(attention.HAVE_FA3 or attention.HAVE_FA4 or attention.flash_attn_with_kvcache)
    if mode == "flash" or (mode == "auto" and have_flash):
        if not have_flash:
            raise RuntimeError("--attention flash: no flash-attn package is importable")
        return "flash-attn"
    attention.flash_attn_with_kvcache = paged_attn_with_kvcache
    attention.flash_attn_varlen_func = paged_attn_varlen
    attention.HAVE_FA3 = False
    attention.HAVE_FA4 = False
    attention.is_fa_min_version = lambda *a, **k: True  # the assert guards only the kernels above
    return "pytorch-paged-fallback"


# --------------------------------------------------------------------------------------------
# Model, context and engine
# --------------------------------------------------------------------------------------------

#: Workload sizes as the worker's helpers read them (dicts); the definitions live in
#: :mod:`skill_tools.harness.inference_workloads` (CPU-importable, shared with the runner).
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


def enable_batch_invariance(model) -> str:
    """What Megatron-LM's GDP end-to-end test does (tests/unit_tests/inference/engines/
    test_gdp_cuda_graph_e2e.py:153-159 @main): the config flag and every Attention module's copy
    of it (read once in ``Attention.__init__``, attention.py:320), set after construction so the
    config's FlashAttention-3/4 check (transformer_config.py:2875) does not refuse the build; the
    kernels themselves are patched by ``set_batch_invariant_mode`` around the whole run.

    The Attention copy only picks ``num_splits=1`` for FA3/FA4 and asserts on the FA2 path
    (attention.py:1126-1128, 1255-1258), which the PyTorch paged fallback stands in for; the fallback
    has no split-KV reduction, so it is left off there. Returns what attention does, for the record."""
    import megatron.core.transformer.attention as attention

    model.config.batch_invariant_mode = True
    if not (attention.HAVE_FA3 or attention.HAVE_FA4):
        return "attention flag off: no FA3/FA4 (the PyTorch paged fallback has no split-KV reduction)"
    for module in model.modules():
        if isinstance(module, attention.Attention):
            module.batch_invariant_mode = True
    return "attention flag on (FA3/FA4 num_splits=1)"


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
    invariance = enable_batch_invariance(model) if args.batch_invariant else None
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
              "engine_allocated_bytes": torch.cuda.memory_allocated() - mem_before, "batch_invariance": invariance,
              "_restored": restored}
    return engine, model, context, config, build_s, extras


def kv_buffer_gb(workload: dict[str, Any], max_requests: int, max_seq: int, block_tokens: int = 256) -> float:
    """KV-cache budget for every request at full length, doubled for the paused pool and slack."""
    head_dim = workload["hidden_size"] // workload["num_attention_heads"]
    block_bytes = 2 * workload["num_layers"] * block_tokens * workload["num_attention_heads"] * head_dim * 2
    blocks = max_requests * math.ceil(max_seq / block_tokens) + 8
    return max(0.1, 2.0 * blocks * block_bytes / 1024**3)


def count_graphs(model, scope: str) -> dict[str, int]:
    """CUDA graphs MCore actually recorded: runners of the block manager or of every layer."""

    def runners(mod) -> tuple[int, int]:
        mgr = getattr(mod, "cudagraph_manager", None)
        if mgr is None:
            return 0, 0
        rs = list(getattr(mgr, "cudagraph_runners", []) or [])
        fwd = sum(1 for r in rs if getattr(r, "fwd_graph", None) is not None or getattr(r, "fwd_graph_recorded", False))
        return len(rs), fwd

    # Block scope: GPTModel puts the manager on its decoder, HybridModel on the model itself
    # (hybrid_model.py:406-413; test_dynamic_engine.py:682-686 @core_v0.19.0 checks the same).
    block_r, block_g = (a + b for a, b in zip(runners(model.decoder), runners(model)))
    layer_r = layer_g = 0
    for layer in model.decoder.layers:
        r, g = runners(layer)
        layer_r += r
        layer_g += g
    return {"block_runners": block_r, "block_graphs": block_g, "layer_runners": layer_r, "layer_graphs": layer_g,
            "runners": block_r + layer_r, "graphs": block_g + layer_g}


class ForwardTimer:
    """Times every model forward with CUDA events, and records whether it replayed a graph
    (counted replays) and whether its batch was padded to a graph bucket (the context's view)."""

    def __init__(self, controller, context):
        self.records: list[tuple[torch.cuda.Event, torch.cuda.Event, bool, bool, bool]] = []
        inner = controller._dynamic_step_forward_logits
        GraphCounter.install()

        def timed(input_ids, position_ids):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            before = GraphCounter.replays
            start.record()
            out = inner(input_ids, position_ids)
            end.record()
            self.records.append((start, end, bool(context.is_decode_only()), GraphCounter.replays > before,
                                 bool(context.using_cuda_graph_this_step())))
            return out

        controller._dynamic_step_forward_logits = timed

    def drain(self) -> list[dict[str, Any]]:
        torch.cuda.synchronize()
        out = [{"ms": s.elapsed_time(e), "decode": d, "graph": g, "graph_shape": p}
               for s, e, d, g, p in self.records]
        self.records.clear()
        return out


def make_prompts(batch: int, prompt_len: int, vocab: int, seed: int) -> list[torch.Tensor]:
    """The same prompts in every process: request i's tokens depend only on (seed, i)."""
    out = []
    for i in range(batch):
        g = torch.Generator().manual_seed(seed * 1000 + i)
        out.append(torch.randint(0, vocab - 1, (prompt_len,), generator=g, dtype=torch.int64).cuda())
    return out


def generate(engine, prompts, decode_tokens: int, first_id: int, timer: ForwardTimer,
             log_probs: bool = False) -> dict[str, Any]:
    """Prefill + greedy decode of one batch; per-step wall times and per-forward GPU times.
    With ``log_probs``, also the log-probability of every generated token (untimed parity runs)."""
    from megatron.core.inference.inference_request import DynamicInferenceRequest
    from megatron.core.inference.sampling_params import SamplingParams

    ids = []
    for i, p in enumerate(prompts):
        sp = SamplingParams(num_tokens_to_generate=decode_tokens, termination_id=-1, top_k=1,
                            return_log_probs=log_probs, skip_prompt_log_probs=True)
        req = DynamicInferenceRequest(request_id=first_id + i, prompt_tokens=p, sampling_params=sp)
        engine._add_request(req)
        ids.append(first_id + i)
    outputs: dict[int, list[int]] = {}
    lps: dict[int, list[float]] = {}
    steps: list[dict[str, Any]] = []
    while engine.has_unfinished_requests():
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        result = engine.step_modern()
        torch.cuda.synchronize()
        ms = (time.perf_counter() - t0) * 1e3
        steps.append({"ms": ms, "cuda_graph_request_count": result.get("cuda_graph_request_count")})
        for rec in result["finished_request_records"]:
            req = rec.merge()
            outputs[req.request_id] = list(map(int, req.generated_tokens))
            if log_probs and req.generated_log_probs is not None:
                lps[req.request_id] = [float(x) for x in req.generated_log_probs]
        if len(steps) > decode_tokens + 16:
            raise RuntimeError(f"generation did not finish after {len(steps)} steps")
    fwd = timer.drain()
    for step, f in zip(steps, fwd):
        step.update(forward_ms=f["ms"], decode=f["decode"], graph=f["graph"], graph_shape=f["graph_shape"])
    out = {"steps": steps, "tokens": [outputs.get(i, []) for i in ids]}
    if log_probs:
        out["logprobs"] = [lps.get(i, []) for i in ids]
    return out


def unavailable_result(args: argparse.Namespace, workload: IW.Workload, reasons: list[str]) -> dict[str, Any]:
    """What the worker writes instead of a measurement when the workload cannot be built here."""
    return {"scope": args.scope, "unavailable": reasons,
            "workload": {**workload.to_dict(), "decode_tokens": args.decode_tokens, "about": workload.about},
            "env": {"gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
                    "torch": torch.__version__, "cuda": torch.version.cuda, "python": platform.python_version()},
            "batches": []}


def run(args: argparse.Namespace) -> dict[str, Any]:
    spec = IW.WORKLOADS[args.workload]
    if args.prompt_len:
        spec = IW.Workload(**{**spec.__dict__, "prompt_len": args.prompt_len})
    reasons = IW.unavailable(spec)
    if reasons and not args.run_refused:
        return unavailable_result(args, spec, reasons)
    attention_impl = install_attention(args.attention)
    if args.batch_invariant:
        from megatron.core.transformer.custom_layers.batch_invariant_kernels import set_batch_invariant_mode

        with set_batch_invariant_mode(True):
            return _measure(args, spec, attention_impl)
    return _measure(args, spec, attention_impl)


def _measure(args: argparse.Namespace, spec: IW.Workload, attention_impl: str) -> dict[str, Any]:
    workload = spec.to_dict()
    engine, model, context, config, build_s, extras = build_engine(args, spec)
    capture_stats = getattr(engine, "capture_stats", None)
    graphs = count_graphs(model, args.scope)
    shapes = [str(d) for d in (context.cuda_graph_batch_dimensions_list or [])]
    mem_after_build = {"allocated_bytes": torch.cuda.memory_allocated(),
                       "reserved_bytes": torch.cuda.memory_reserved(),
                       "peak_allocated_bytes": torch.cuda.max_memory_allocated(),
                       "engine_build_allocated_bytes": extras["engine_allocated_bytes"]}
    timer = ForwardTimer(engine.controller, context)
    next_id = 0
    batches = []
    for b in args.batch_sizes:
        prompts = make_prompts(b, spec.prompt_len, spec.vocab_size, args.seed)
        for _ in range(args.warmup):
            generate(engine, prompts, args.decode_tokens, next_id, timer)
            next_id += b
        trials = []
        for _ in range(args.trials):
            trials.append(generate(engine, prompts, args.decode_tokens, next_id, timer))
            next_id += b
        # One untimed generation with log-probs: the parity verdict reports logprob deltas.
        scored = generate(engine, prompts, args.decode_tokens, next_id, timer, log_probs=True)
        next_id += b
        tokens = trials[0]["tokens"]
        batches.append({
            "batch_size": b,
            "tokens": tokens,
            "logprobs": scored["logprobs"],
            "tokens_stable_across_trials": all(t["tokens"] == tokens for t in trials + [scored]),
            "trials": [t["steps"] for t in trials],
        })
        logging.info("batch %d done: %d trials", b, len(trials))
    props = torch.cuda.get_device_properties(0)
    layer_spec = {"local": "local (get_gpt_layer_local_spec)",
                  "te": "TE (get_gpt_layer_with_transformer_engine_spec)",
                  "hybrid": "hybrid_stack_spec (HybridModel)"}[spec.layer_spec]
    return {
        "scope": args.scope,
        "workload": {**workload, "about": spec.about, "decode_tokens": args.decode_tokens,
                     "params_dtype": "bf16", "residual_dtype": extras["residual_dtype"],
                     "layer_spec": layer_spec, "mamba_state": extras["mamba_state"],
                     "attention": attention_impl, "num_cuda_graphs": args.num_cuda_graphs,
                     "batch_invariant_mode": bool(args.batch_invariant),
                     "batch_invariance": extras["batch_invariance"],
                     "use_cuda_graphs_for_non_decode_steps": False, "max_requests": context.max_requests,
                     "decode_padding": "graph buckets" if (args.scope != "none" or args.eager_graph_shapes)
                     else "token rounder",
                     "warmup_generations": args.warmup, "trials": args.trials, "seed": args.seed},
        "env": {
            "gpu": props.name,
            "torch": torch.__version__,
            "cuda": torch.version.cuda,
            "python": platform.python_version(),
        },
        "capture": {
            "captured": bool(capture_stats) and graphs["graphs"] > 0 if args.scope != "none" else False,
            "capture_s": (capture_stats or {}).get("time"),
            "engine_build_s": build_s,
            "graph_batch_shapes": shapes,
            "graphs": graphs,
            "capture_stats": capture_stats,
        },
        "expert_bias": {"restored": extras["expert_bias"],
                        "after_run": expert_bias_after(model, extras["_restored"]) if extras["_restored"] else None},
        "memory": {**mem_after_build, "end_peak_allocated_bytes": torch.cuda.max_memory_allocated(),
                   "end_reserved_bytes": torch.cuda.memory_reserved()},
        "batches": batches,
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scope", choices=("none", "layer", "block"), required=True)
    p.add_argument("--batch-sizes", default="1,2,4,8", type=lambda s: [int(x) for x in s.split(",") if x])
    p.add_argument("--decode-tokens", type=int, default=64)
    p.add_argument("--trials", type=int, default=3)
    p.add_argument("--warmup", type=int, default=1, help="untimed generations per batch size")
    p.add_argument("--workload", choices=sorted(WORKLOADS), default="tiny-gpt")
    p.add_argument("--prompt-len", type=int, default=0)
    p.add_argument("--num-cuda-graphs", type=int, default=-1)
    p.add_argument("--buffer-gb", type=float, default=0.0, help="KV cache GB (0 = sized for the batch)")
    p.add_argument("--attention", choices=("auto", "flash", "fallback"), default="auto")
    p.add_argument("--eager-graph-shapes", action="store_true",
                   help="with --scope none: pad eager decode steps to the graph buckets (equal-shape parity)")
    p.add_argument("--batch-invariant", action="store_true",
                   help="run under megatron-core's batch_invariant_mode (parity at natural shapes)")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--run-refused", action="store_true", help="build the workload even where unavailable() refuses it")
    p.add_argument("--out", required=True, help="JSON file to write")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(message)s", force=True)
    args = parse_args(argv)
    if args.eager_graph_shapes and args.scope != "none":
        print("inference worker: --eager-graph-shapes is the eager control; use it with --scope none",
              file=sys.stderr)
        return 2
    result = run(args)
    tmp = args.out + ".tmp"
    with open(tmp, "w") as fh:
        json.dump(result, fh, default=str)
    os.replace(tmp, args.out)
    for reason in result.get("unavailable", []):
        print(f"inference worker: {args.workload} cannot be built here: {reason}", file=sys.stderr)
    print(f"inference worker: scope={args.scope} wrote {args.out}", file=sys.stderr)
    if torch.distributed.is_initialized():
        torch.distributed.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
