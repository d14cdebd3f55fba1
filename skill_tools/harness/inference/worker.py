"""GPU side of ``skill-tools bench --mode inference``: one inference-graph scope per process.

Builds one of the workloads of :mod:`skill_tools.harness.inference.workloads` (a tiny GPT, MoE
with or without shared experts, an fp32 residual stream, a ``HybridModel`` with attention, MoE and
Mamba layers) and serves it through Megatron-Core's own dynamic inference
stack — ``DynamicInferenceContext`` + ``GPTInferenceWrapper`` + ``TextGenerationController`` +
``DynamicInferenceEngine`` (the set-up of ``tests/unit_tests/inference/engines/
test_dynamic_engine.py`` at core_v0.19.0). With ``--scope layer|block`` the model uses
``cuda_graph_impl="local"`` and the engine captures decode-only graphs for the batch buckets
of ``batch_dimensions_utils.py`` (``num_cuda_graphs=-1``) when it is constructed. Then, for each
batch size, it runs warm-up generations and timed generations (prefill + N greedy decode tokens),
timing every engine step and every model forward, and writes one JSON file that the runner
(:mod:`.runner`) turns into statistics, parity verdicts and reports.

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
of :mod:`.attention` (plain PyTorch, static shapes, no host syncs in the decode path, so they are capturable)
and records that in the output: absolute times then include a slower attention than production.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import sys
import time
from typing import Any

import torch

from skill_tools.harness.graph_counter import GraphCounter
from skill_tools.harness.inference import workloads as IW
from skill_tools.harness.inference.attention import install_attention
from skill_tools.harness.inference.engine_setup import build_engine, expert_bias_after

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
    p.add_argument("--workload", choices=sorted(IW.WORKLOADS), default="tiny-gpt")
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
