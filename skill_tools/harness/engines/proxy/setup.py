"""Training set-up the way Megatron's training loop does it (worker side only).

Every capture path needs part of this: per-layer ``local`` graphs need MCore DDP (parameters
carry ``main_grad``), ``TECudaGraphHelper`` needs process groups, the num-microbatches
calculator and the optimizer list, and every graph needs cudagraph-safe RNG generators
registered with the capture. Order and arguments follow ``megatron/training/initialize.py``
(``_set_random_seed``: ``use_cudagraphable_rng = cuda_graph_impl != "none"``) and
``megatron/training/training.py`` (``setup_model_and_optimizer``, ``train``) at core_v0.19.0.
"""

from __future__ import annotations

import os
from datetime import timedelta

import torch
from megatron.core import parallel_state
from megatron.core.distributed import (
    DistributedDataParallel,
    DistributedDataParallelConfig,
    finalize_model_grads,
)
from megatron.core.num_microbatches_calculator import (
    destroy_num_microbatches_calculator,
    init_num_microbatches_calculator,
)
from megatron.core.optimizer import OptimizerConfig, get_megatron_optimizer
from megatron.core.tensor_parallel.random import model_parallel_cuda_manual_seed
from megatron.core.transformer.transformer_config import TransformerConfig

from skill_tools.harness.spec import VariantSpec


def init_distributed(spec: VariantSpec) -> None:
    """NCCL process group from torchrun's environment, then MCore's model-parallel groups."""
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local_rank)
    if not torch.distributed.is_initialized():
        torch.distributed.init_process_group(
            backend="nccl", timeout=timedelta(minutes=5), device_id=torch.device("cuda", local_rank)
        )
    parallel_state.initialize_model_parallel(
        tensor_model_parallel_size=spec.tp,
        expert_model_parallel_size=spec.ep,
        create_gloo_process_groups=False,
    )


def init_rng(spec: VariantSpec) -> None:
    """Seeded RNG trackers; cudagraph-safe generators whenever a graph will be captured."""
    torch.manual_seed(spec.seed)
    model_parallel_cuda_manual_seed(
        spec.seed,
        te_rng_tracker=spec.te_rng_tracker,
        use_cudagraphable_rng=spec.impl != "none",
        force_reset_rng=True,
    )


def init_microbatches(spec: VariantSpec) -> int:
    """The global num-microbatches calculator (read by schedules and TECudaGraphHelper)."""
    destroy_num_microbatches_calculator()
    dp = parallel_state.get_data_parallel_world_size()
    init_num_microbatches_calculator(
        rank=torch.distributed.get_rank(),
        rampup_batch_size=None,
        global_batch_size=spec.micro_batch_size * spec.num_microbatches * dp,
        micro_batch_size=spec.micro_batch_size,
        data_parallel_size=dp,
    )
    return spec.num_microbatches


def wrap_ddp(model: torch.nn.Module, config: TransformerConfig) -> DistributedDataParallel:
    """MCore DDP: contiguous grad buffers and ``main_grad`` on every parameter.

    Built on the current stream. Megatron-LM builds it under ``torch.cuda.stream(...)`` of the
    capture stream (full iteration) or a fresh side stream (training.py l.1870-1896 @core_v0.19.0),
    because DDP keeps each parameter's AccumulateGrad node and the node keeps its creation stream;
    this proxy keeps the difference on purpose (``--capture-stream`` selects the stream) and is not
    evidence of what Megatron-LM's loop does."""
    ddp_config = DistributedDataParallelConfig(
        grad_reduce_in_fp32=True,
        overlap_grad_reduce=False,
        use_distributed_optimizer=False,
        check_for_nan_in_grad=False,
    )
    ddp = DistributedDataParallel(config=config, ddp_config=ddp_config, module=model)
    ddp.broadcast_params()
    return ddp


def build_optimizer(ddp: DistributedDataParallel, spec: VariantSpec):
    """MCore's Adam in bf16 mixed precision; capturable when the optimizer step is graphed.

    Gradient clipping is off: its norm is read back to the host (``.item()``), a sync that
    would both stall eager steps and forbid the optimizer graph. ``optimizer_cuda_graph`` only
    selects TE FusedAdam's capturable mode here (``megatron/core/optimizer/__init__.py``); the
    graph itself is the worker's ``OptimizerCudaGraphWrapper``.
    """
    opt_config = OptimizerConfig(
        optimizer="adam",
        lr=spec.lr,
        weight_decay=0.0,
        bf16=True,
        params_dtype=torch.bfloat16,
        use_distributed_optimizer=False,
        clip_grad=0.0,
        optimizer_cuda_graph=spec.optimizer_capturable,
    )
    return get_megatron_optimizer(opt_config, [ddp], use_gloo_process_groups=False)


def configure_schedule_hooks(config: TransformerConfig, ddp: DistributedDataParallel, optimizer) -> None:
    """What ``train()`` sets on the model config before the first step."""
    config.no_sync_func = ddp.no_sync
    config.finalize_model_grads_func = finalize_model_grads
    config.grad_scale_func = optimizer.scale_loss
    config.grad_sync_func = None
    config.param_sync_func = None


def teardown() -> None:
    destroy_num_microbatches_calculator()
    if torch.distributed.is_initialized():
        parallel_state.destroy_model_parallel()
        torch.distributed.destroy_process_group()
