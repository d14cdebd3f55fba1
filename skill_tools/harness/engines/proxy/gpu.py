"""Run one proxy variant on the GPU and write its JSON result (runs in a torchrun subprocess).

Engine ``proxy``: a capture micro-benchmark of MCore's graph machinery in a loop of the harness's
own, not Megatron-LM's. It differs from what users run: less host work per step (so larger
speedups), and DDP built on the current stream, where Megatron-LM builds it on the capture stream
or a side stream (``megatron/training/training.py`` l.1870-1896 @core_v0.19.0); on torch builds
without ``set_override_stale_capture_stream`` that made its full-iteration and TE captures fail on
the default stream where Megatron-LM's loop captured. Guidance and card.yaml rest on engine
``megatron-lm`` (:mod:`skill_tools.harness.engines.megatron_lm`), never on this loop.

The only harness module that imports torch, megatron-core and Transformer Engine at module
level. One process = one variant, so a failed capture (assertion, illegal memory access, OOM,
hang) costs only this process; the runner classifies it from the log.

Capture paths are MCore's own, driven the way ``megatron/training/training.py`` (core_v0.19.0,
``train()``) drives them:

* ``full_iteration``: ``FullCudaGraphWrapper`` around the forward-backward function;
* optimizer graph: ``OptimizerCudaGraphWrapper`` around ``optimizer.step``;
* ``local``: per-layer ``CudaGraphManager`` graphs, created by ``create_cudagraphs()`` at the
  end of the schedule (``megatron/core/pipeline_parallel/schedules.py``);
* ``transformer_engine``: ``TECudaGraphHelper.create_cudagraphs()`` before the step whose index
  equals ``cuda_graph_warmup_steps``.

Graphs are counted from MCore/TE records (wrapper class state, ``CudaGraphManager`` runners,
``layer.cuda_graphs``) and every ``torch.cuda.CUDAGraph`` capture and replay is counted, so
"replayed" is observed, never inferred from speed.

Each step also gets a Megatron-LM per-iteration line (``iteration_log``), printed at syncs the
measurement already has (never inside the timed loop), so ``skill-tools logs`` reads the log.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import sys
import time
import traceback
from functools import partial
from pathlib import Path
from typing import Any

import torch

from skill_tools.config.era import TE_DISTRIBUTIONS, installed_version
from skill_tools.harness.gpu_profile import busy_ms
from skill_tools.harness.graph_counter import GraphCounter
from skill_tools.harness.iteration_log import iteration_lines
from skill_tools.harness.results import driver_version
from skill_tools.harness.spec import VariantSpec

log = logging.getLogger("skill_tools.harness.engines.proxy")


def loss_func(loss_mask: torch.Tensor, output_tensor: torch.Tensor):
    """Token-summed loss, token count and a report entry (as in pretrain_gpt.py)."""
    losses = output_tensor.view(-1).float()
    mask = loss_mask.view(-1).float()
    loss = torch.sum(losses * mask)
    num_tokens = mask.sum().clone().detach().to(torch.int)
    return loss, num_tokens, {"lm loss": torch.cat([loss.clone().detach().view(1), num_tokens.view(1)])}


def forward_step(data_iterator, model):
    batch = next(data_iterator)
    output = model(
        input_ids=batch["tokens"],
        position_ids=batch["position_ids"],
        attention_mask=None,
        labels=batch["labels"],
    )
    return output, partial(loss_func, batch["loss_mask"])


def graph_records(spec: VariantSpec, ddp, helper) -> dict[str, int]:
    """Graphs that MCore/TE hold after capture, by source."""
    from megatron.core.full_cuda_graph import FullCudaGraphWrapper
    from megatron.core.optimizer.optimizer_cuda_graph import OptimizerCudaGraphWrapper
    from megatron.core.transformer.cuda_graphs import CudaGraphManager

    out: dict[str, int] = {}
    if spec.impl == "full_iteration":
        out["FullCudaGraphWrapper"] = sum(g is not None for g in FullCudaGraphWrapper.cuda_graph.values())
    if spec.optimizer_graph:
        out["OptimizerCudaGraphWrapper"] = int(OptimizerCudaGraphWrapper.cuda_graph is not None)
    if spec.impl == "local":
        n = 0
        for m in ddp.modules():
            if isinstance(m, CudaGraphManager):
                for r in m.cudagraph_runners:
                    n += int(r.fwd_graph is not None) + int(r.bwd_graph is not None)
        out["CudaGraphManager"] = n
    if spec.impl == "transformer_engine" and helper is not None:
        out["TECudaGraphHelper"] = sum(len(getattr(layer, "cuda_graphs", []) or [])
                                       for layer in helper.flattened_callables)
    return out


def kernel_ms_per_step(run_step, first: int, n: int) -> float:
    """GPU-busy time per step: the union of kernel/memcpy intervals seen by torch.profiler."""
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for k in range(n):
            run_step(first + k)
        torch.cuda.synchronize()
    return busy_ms(prof) / max(n, 1)


def environment() -> dict[str, Any]:
    return {
        "gpu": torch.cuda.get_device_name() if torch.cuda.is_available() else None,
        "driver": driver_version(),
        "torch": torch.__version__,
        "megatron_core": installed_version("megatron-core", "megatron_core"),
        "transformer_engine": installed_version(*TE_DISTRIBUTIONS),
        "cuda": torch.version.cuda,
        "python": platform.python_version(),
    }


def resolve_capture_stream(mode: str) -> str:
    """"auto" -> "default" where torch can re-point autograd's stale streams at capture time
    (``set_override_stale_capture_stream``, used by MCore's FullCudaGraphWrapper), else "shared"."""
    if mode != "auto":
        return mode
    return "default" if hasattr(torch.autograd.graph, "set_override_stale_capture_stream") else "shared"


def run_variant(spec: VariantSpec, result: dict[str, Any]) -> None:
    from skill_tools.harness.engines.proxy import setup as ts

    t0 = time.perf_counter()
    GraphCounter.install()
    result["phase"] = "setup"
    ts.init_distributed(spec)
    result["capture_stream"] = stream_mode = resolve_capture_stream(spec.capture_stream)
    if stream_mode == "shared":
        # Everything (DDP hook registration included) on the stream that captures, so autograd's
        # AccumulateGrad nodes are not bound to the legacy default stream (the failure torch
        # builds without set_override_stale_capture_stream hit: cudaErrorStreamCaptureImplicit).
        from megatron.core.full_cuda_graph import get_shared_capture_stream

        stream = get_shared_capture_stream()
        torch.cuda.graphs.graph.default_capture_stream = stream
        with torch.cuda.stream(stream):
            _run_variant(spec, result, t0)
    else:
        _run_variant(spec, result, t0)


def _run_variant(spec: VariantSpec, result: dict[str, Any], t0: float) -> None:
    from megatron.core.full_cuda_graph import FullCudaGraphWrapper
    from megatron.core.num_microbatches_calculator import get_current_global_batch_size
    from megatron.core.optimizer.optimizer_cuda_graph import OptimizerCudaGraphWrapper
    from megatron.core.pipeline_parallel import get_forward_backward_func

    from skill_tools.harness.engines.proxy import model as proxy
    from skill_tools.harness.engines.proxy import setup as ts

    ts.init_rng(spec)
    num_microbatches = ts.init_microbatches(spec)
    config = proxy.transformer_config(spec)
    model = proxy.build_gpt(config, spec)
    ddp = ts.wrap_ddp(model, config)
    optimizer = ts.build_optimizer(ddp, spec)
    ts.configure_schedule_hooks(config, ddp, optimizer)
    data = proxy.SyntheticBatches(spec.shape, spec.micro_batch_size, spec.seed)
    result["env"] = environment()
    result["num_parameters"] = sum(p.numel() for p in model.parameters())

    forward_backward = get_forward_backward_func()
    if spec.impl == "full_iteration":
        forward_backward = FullCudaGraphWrapper(forward_backward, cuda_graph_warmup_steps=spec.warmup_steps)
    if spec.optimizer_graph:
        optimizer.step = OptimizerCudaGraphWrapper(optimizer.step, cuda_graph_warmup_steps=spec.warmup_steps)
    helper = None
    if spec.impl == "transformer_engine":
        from megatron.core.transformer.cuda_graphs import TECudaGraphHelper

        helper = TECudaGraphHelper(model=[ddp], config=config, seq_length=spec.shape.seq_length,
                                   micro_batch_size=spec.micro_batch_size, optimizers=[optimizer])

    capture_step = spec.warmup_steps  # the step that captures (FullCudaGraphWrapper, TE helper, local record)
    first_measured = capture_step + 1 + spec.settle_steps
    total = first_measured + spec.steps + spec.profile_steps
    losses = torch.zeros(total, device="cuda", dtype=torch.float32)
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(total)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(total)]
    seq, mbs = spec.shape.seq_length, spec.micro_batch_size
    memory: dict[str, float] = {}
    capture_wall: list[float] = []
    log_rank = torch.distributed.get_rank() == 0  # the rank whose losses the result JSON holds

    def print_iterations(first: int, stop: int, step_ms: list[float]) -> None:
        """Megatron-LM ``training_log`` lines for steps ``first..stop-1``; call only after a sync."""
        if log_rank and stop > first:
            for line in iteration_lines(step_ms, losses[first:stop].tolist(), first=first,
                                        train_iters=total, learning_rate=spec.lr,
                                        global_batch_size=get_current_global_batch_size()):
                print(line, flush=True)

    def run_step(i: int) -> None:
        if GraphCounter.captures == 0:
            # Overwritten until a step captures: the peak before the capturing step. The
            # caching allocator's stats are host-side, so this needs no sync.
            memory["max_allocated_before_capture_mb"] = torch.cuda.max_memory_allocated() / 2**20
            memory["max_reserved_before_capture_mb"] = torch.cuda.max_memory_reserved() / 2**20
        if i == capture_step:
            torch.cuda.synchronize()
            # The warmup steps' lines go out here, at the sync that precedes the capture, so
            # the capture messages MCore prints during this step fall between them and the
            # capture step's line, where a Megatron-LM log has them (logs/steady.py reads the
            # capture iteration from that order). Before capture_wall and the step's start event.
            print_iterations(0, i, [starts[k].elapsed_time(ends[k]) for k in range(i)])
            capture_wall.append(time.perf_counter())
        starts[i].record()
        if helper is not None and i == capture_step and not helper.capture_finished():
            helper.create_cudagraphs()
        ddp.zero_grad_buffer()
        optimizer.zero_grad()
        reduced = forward_backward(
            forward_step_func=forward_step,
            data_iterator=data,
            model=[ddp],
            num_microbatches=num_microbatches,
            seq_length=seq,
            micro_batch_size=mbs,
            decoder_seq_length=seq,
            forward_only=False,
        )
        optimizer.step()
        sums = torch.stack([r["lm loss"] for r in reduced]).sum(0)
        losses[i] = sums[0] / sums[1]
        ends[i].record()
        if GraphCounter.captures and "first_capture_step" not in result:
            result["first_capture_step"] = i
        if i == capture_step:
            torch.cuda.synchronize()
            capture_wall.append(time.perf_counter())

    result["phase"] = "warmup"
    for i in range(capture_step):
        run_step(i)
    result["phase"] = "capture"
    captures_before = GraphCounter.captures
    run_step(capture_step)
    for i in range(capture_step + 1, first_measured):
        run_step(i)
    torch.cuda.synchronize()
    records = graph_records(spec, ddp, helper)
    result["graph_records"] = records
    result["graphs_count"] = sum(records.values())
    # Per-layer local graphs may be created at the end of the step before ``capture_step``
    # (CudaGraphManager counts its own warmup), so captures are counted from process start.
    result["captures_observed"] = GraphCounter.captures
    result["captures_in_capture_step"] = GraphCounter.captures - captures_before
    result["captured"] = result["graphs_count"] > 0 and GraphCounter.captures > 0
    result["capture_s"] = round(capture_wall[1] - capture_wall[0], 4) if len(capture_wall) == 2 else None

    result["phase"] = "measure"
    replays_before = GraphCounter.replays
    for i in range(first_measured, first_measured + spec.steps):
        run_step(i)
    torch.cuda.synchronize()
    replays = GraphCounter.replays - replays_before
    result["replays_measured"] = replays
    result["replays_per_step"] = replays / max(spec.steps, 1)
    result["replayed"] = bool(spec.graphed and replays >= spec.steps)

    step_ms = [starts[i].elapsed_time(ends[i]) for i in range(first_measured + spec.steps)]
    result["step_ms_all"] = [round(x, 5) for x in step_ms]
    result["raw_step_ms"] = [round(x, 5) for x in step_ms[first_measured:]]
    result["capture_step_index"] = capture_step
    result["first_measured_index"] = first_measured
    # After the measured loop's sync: the capture, settle and measured steps, in order, with the
    # same per-step times as step_ms_all. Profiled steps are not logged (profiler overhead).
    print_iterations(capture_step, len(step_ms), step_ms[capture_step:])

    result["phase"] = "profile"
    if spec.profile_steps > 0:
        result["kernel_ms_per_step"] = round(kernel_ms_per_step(run_step, first_measured + spec.steps,
                                                                spec.profile_steps), 5)
    torch.cuda.synchronize()
    memory["max_allocated_after_capture_mb"] = torch.cuda.max_memory_allocated() / 2**20
    memory["max_reserved_after_capture_mb"] = torch.cuda.max_memory_reserved() / 2**20
    result["memory"] = {k: round(v, 2) for k, v in memory.items()}
    result["losses"] = [float(x) for x in losses.tolist()]
    result["phase"] = "done"
    result["wall_s"] = round(time.perf_counter() - t0, 3)
    if helper is not None and helper.graphs_created():
        helper.delete_cuda_graphs()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="skill_tools.harness.engines.proxy")
    parser.add_argument("--spec", required=True, help="VariantSpec as JSON, or @path to a JSON file")
    parser.add_argument("--out", required=True, help="result JSON path (written by rank 0)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stdout,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    text = Path(args.spec[1:]).read_text() if args.spec.startswith("@") else args.spec
    spec = VariantSpec.from_record(text)
    rank = int(os.environ.get("RANK", "0"))
    result: dict[str, Any] = {"name": spec.name, "spec": spec.to_dict(), "ok": False, "phase": "start"}
    print(f"[harness] variant={spec.name} workload={spec.workload} size={spec.size} impl={spec.impl} "
          f"modules={','.join(spec.modules) or '-'} optimizer_graph={spec.optimizer_graph} "
          f"capturable_optimizer={spec.optimizer_capturable}", flush=True)
    code = 0
    try:
        run_variant(spec, result)
        result["ok"] = True
    except Exception as exc:  # the run's failure is data: the runner classifies it
        result["exception"] = f"{type(exc).__name__}: {exc}"[:2000]
        traceback.print_exc()
        code = 1
    if rank == 0:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, indent=1))
    print(f"[harness] variant={spec.name} phase={result['phase']} ok={result['ok']} "
          f"graphs={result.get('graphs_count')} replays/step={result.get('replays_per_step')}", flush=True)
    try:
        from skill_tools.harness.engines.proxy import setup as ts

        ts.teardown()
    except Exception:  # teardown after a failed capture may itself fail; the result is written
        pass
    return code
