"""Engine ``megatron-lm``: Megatron-LM's own ``pretrain()`` for one variant (GPU subprocess).

Run as ``torchrun -m skill_tools.harness.engines.megatron_lm --sidecar OUT.json -- <flags>``.
Everything after ``--`` goes to Megatron-LM's own argument parser unchanged (the flags the
CLI rendered from the canonical config), so the parser is the judge of every rendered flag.

What this module writes itself is what a user's pretrain script writes: a model provider
(megatron-core 0.16–0.17 only; 0.18+ builds the model from ``gpt_config_from_args``), a
mock-data dataset provider and a forward step. They follow ``pretrain_gpt.py`` of the tag in
use (core_v0.19.0 ``pretrain_gpt.py`` l.95–176 ``get_batch``, l.248–329 ``forward_step``,
l.492–597 ``__main__``; core_v0.16.1 ``pretrain_gpt.py`` l.65–101, l.166–202, l.330–350),
including its batch path (``get_batch_on_this_tp_rank``), because that path is inside the
captured region under full-iteration graphs and is where real runs fail.

Observed without changing Megatron's code path:

* every ``torch.cuda.CUDAGraph`` capture and replay (:class:`GraphCounter`);
* per-iteration CUDA-event times and replay counts, by wrapping the module attribute
  ``megatron.training.training.train_step`` (``train()`` looks it up at call time; the wrapped
  function is Megatron's own, called with the same arguments);
* peak memory and versions, written at exit by rank 0 to the sidecar JSON.

The observation is :mod:`skill_tools.harness.engines.observe`, shared with engine ``bridge``.

One substitution is recorded in the sidecar: the wheel ships the compiled dataset helpers but
not their Makefile, so ``compile_helpers`` (which runs ``make``) is skipped when the compiled
module imports.
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
from functools import partial
from typing import Any

import torch

from skill_tools.harness.engines.observe import (STATE as _STATE, engine_arguments, run_recorded,
                                                 skip_make_when_compiled, versions, wrap_train_step)


# --------------------------------------------------------------------------------------------
# The pretrain script: dataset provider, forward step, model provider (0.16-0.17)
# --------------------------------------------------------------------------------------------


def _tokenizer(args):
    for mod in ("megatron.core.tokenizers.utils.build_tokenizer",
                "megatron.core.tokenizers.text.utils.build_tokenizer"):
        try:
            module = __import__(mod, fromlist=["build_tokenizer"])
            return module.build_tokenizer(args)
        except (ImportError, AttributeError):
            continue
    from megatron.training import get_tokenizer

    return get_tokenizer()


def train_valid_test_datasets_provider(train_val_test_num_samples, vp_stage=None):
    """MockGPTDataset through BlendedMegatronDatasetBuilder, as pretrain_gpt.py does with --mock-data."""
    from megatron.core import mpu
    from megatron.core.datasets.blended_megatron_dataset_builder import BlendedMegatronDatasetBuilder
    from megatron.core.datasets.gpt_dataset import GPTDatasetConfig, MockGPTDataset
    from megatron.training import get_args

    args = get_args()
    wanted = {
        "random_seed": args.seed,
        "sequence_length": args.seq_length,
        "blend": None,
        "blend_per_split": None,
        "split": args.split,
        "path_to_cache": None,
        "mmap_bin_files": True,
        "tokenizer": _tokenizer(args),
        "reset_position_ids": args.reset_position_ids,
        "reset_attention_mask": args.reset_attention_mask,
        "eod_mask_loss": args.eod_mask_loss,
        "create_attention_mask": args.create_attention_mask_in_dataloader,
    }
    fields = {f.name for f in dataclasses.fields(GPTDatasetConfig)}
    config = GPTDatasetConfig(**{k: v for k, v in wanted.items() if k in fields})

    def built_on_rank(*_a, **_k):
        return mpu.get_tensor_model_parallel_rank() == 0 and (
            mpu.is_pipeline_first_stage() or mpu.is_pipeline_last_stage())

    return BlendedMegatronDatasetBuilder(MockGPTDataset, train_val_test_num_samples, built_on_rank, config).build()


train_valid_test_datasets_provider.is_distributed = True


def _get_batch_current(data_iterator):
    """core_v0.19.0 pretrain_gpt.py get_batch, for unpacked data: TP rank 0 reads, then broadcasts."""
    from megatron.core import mpu
    from megatron.core.utils import get_batch_on_this_cp_rank, get_batch_on_this_tp_rank
    from megatron.training import get_args

    args = get_args()
    keys = ("attention_mask", "cu_seqlens", "cu_seqlens_padded", "hybrid_cp_group", "labels", "local_cp_size",
            "loss_mask", "max_seqlen", "position_ids", "tokens")  # pretrain_gpt.py BATCH_KEYS
    tp_rank = mpu.get_tensor_model_parallel_rank()
    batch: dict[str, Any] = {}
    if tp_rank == 0:
        batch = next(data_iterator)
        batch = {k: (batch[k].cuda(non_blocking=True) if batch.get(k) is not None else None) for k in keys}
    kwargs = dict(
        broadcast_src_rank=mpu.get_tensor_model_parallel_src_rank(),
        broadcast_group=mpu.get_tensor_model_parallel_group(),
        has_cu_seqlens=False, is_hybrid_cp=False,
        create_attention_mask_in_dataloader=args.create_attention_mask_in_dataloader,
        cp_size=args.context_parallel_size, tp_rank=tp_rank, micro_batch_size=args.micro_batch_size,
        seq_length=args.seq_length, mtp_on_this_rank=False,
        pipeline_model_parallel_size=args.pipeline_model_parallel_size,
        is_pipeline_first_stage=mpu.is_pipeline_first_stage(),
        is_pipeline_last_stage=mpu.is_pipeline_last_stage(),
    )
    accepted = inspect.signature(get_batch_on_this_tp_rank).parameters
    batch = get_batch_on_this_tp_rank(batch, **{k: v for k, v in kwargs.items() if k in accepted})
    cp_params = inspect.signature(get_batch_on_this_cp_rank).parameters
    cp_kwargs = {"is_hybrid_cp": False} if "is_hybrid_cp" in cp_params else {}
    if "cp_group" in cp_params:
        from megatron.core.parallel_state import get_context_parallel_group

        cp_kwargs["cp_group"] = get_context_parallel_group()
    batch = get_batch_on_this_cp_rank(batch, **cp_kwargs)
    return (batch.get("tokens"), batch.get("labels"), batch.get("loss_mask"),
            batch.get("attention_mask"), batch.get("position_ids"))


def _get_batch_legacy(data_iterator):
    """core_v0.16.1 pretrain_gpt.py get_batch (l.65-101), for unpacked data."""
    from megatron.training.utils import get_batch_on_this_cp_rank, get_batch_on_this_tp_rank

    batch = get_batch_on_this_tp_rank(data_iterator)
    for key in ("cu_seqlens", "cu_seqlens_padded", "max_seqlen", "local_cp_size"):
        batch.pop(key, None)
    batch = get_batch_on_this_cp_rank(batch)
    return (batch.get("tokens"), batch.get("labels"), batch.get("loss_mask"),
            batch.get("attention_mask"), batch.get("position_ids"))


def _is_current_batch_api() -> bool:
    try:
        from megatron.core.utils import get_batch_on_this_tp_rank

        return "broadcast_group" in inspect.signature(get_batch_on_this_tp_rank).parameters
    except ImportError:
        return False


def loss_func(loss_mask: torch.Tensor, output_tensor: torch.Tensor, model=None):
    """Token-summed loss, token count and report (pretrain_gpt.py loss_func without the NaN checks'
    rerun machinery, which Megatron's loop applies itself through --check-for-nan-in-loss-and-grad)."""
    from megatron.core.rerun_state_machine import get_rerun_state_machine
    from megatron.training import get_args

    losses = output_tensor.view(-1).float()
    mask = loss_mask.view(-1).float()
    loss = torch.sum(losses * mask)
    num_tokens = mask.sum().clone().detach().to(torch.int)
    if get_args().check_for_nan_in_loss_and_grad:
        get_rerun_state_machine().validate_result(result=loss, rejection_func=torch.isnan,
                                                  message="found NaN in local forward loss calculation",
                                                  tolerance=0.0, fatal=True)
    return loss, num_tokens, {"lm loss": torch.cat([loss.clone().detach().view(1), num_tokens.view(1)])}


def forward_step(data_iterator, model, return_schedule_plan: bool = False):
    from megatron.training import get_timers

    timers = get_timers()
    timers("batch-generator", log_level=2).start()
    tokens, labels, loss_mask, attention_mask, position_ids = _GET_BATCH(data_iterator)
    timers("batch-generator").stop()
    output_tensor = model(tokens, position_ids, attention_mask, labels=labels, loss_mask=loss_mask)
    return output_tensor, partial(loss_func, loss_mask, model=model)


_GET_BATCH = _get_batch_legacy


def model_provider(pre_process=True, post_process=True, vp_stage=None, config=None, pg_collection=None):
    """GPTModel with TE layer specs (core_v0.16.1 gpt_builders.py gpt_builder, mcore models only)."""
    from megatron.core.models.gpt import GPTModel
    from megatron.core.models.gpt.gpt_layer_specs import (
        get_gpt_decoder_block_spec,
        get_gpt_layer_local_spec,
        get_gpt_layer_with_transformer_engine_spec,
    )
    from megatron.training import get_args
    from megatron.training.arguments import core_transformer_config_from_args

    args = get_args()
    config = config or core_transformer_config_from_args(args)
    use_te = args.transformer_impl == "transformer_engine"
    if args.num_experts:
        spec = get_gpt_decoder_block_spec(config, use_transformer_engine=use_te, normalization=args.normalization,
                                          qk_l2_norm=args.qk_l2_norm, vp_stage=vp_stage)
    elif use_te:
        spec = get_gpt_layer_with_transformer_engine_spec(args.num_experts, args.moe_grouped_gemm, args.qk_layernorm)
    else:
        spec = get_gpt_layer_local_spec(args.num_experts, args.moe_grouped_gemm, args.qk_layernorm)
    kwargs = dict(config=config, transformer_layer_spec=spec, vocab_size=args.padded_vocab_size,
                  max_sequence_length=args.max_position_embeddings, pre_process=pre_process,
                  post_process=post_process, fp16_lm_cross_entropy=args.fp16_lm_cross_entropy,
                  parallel_output=True, share_embeddings_and_output_weights=not args.untie_embeddings_and_output_weights,
                  position_embedding_type=args.position_embedding_type, rotary_percent=args.rotary_percent,
                  rotary_base=args.rotary_base, vp_stage=vp_stage, pg_collection=pg_collection)
    accepted = inspect.signature(GPTModel.__init__).parameters
    return GPTModel(**{k: v for k, v in kwargs.items() if k in accepted and (v is not None or k == "vp_stage")})


def main(argv: list[str] | None = None) -> int:
    parsed = engine_arguments("skill_tools.harness.engines.megatron_lm", "Megatron-LM flags", argv)
    if parsed is None:
        return 2
    opts, flags = parsed
    global _GET_BATCH
    _GET_BATCH = _get_batch_current if _is_current_batch_api() else _get_batch_legacy
    sys.argv = [sys.argv[0], *flags]

    def body() -> None:
        skip_make_when_compiled()
        from megatron.core.enums import ModelType
        from megatron.training import pretrain

        _STATE["versions"] = versions()
        import megatron.training.training as training

        from skill_tools.harness.engines.megatron_lm.headroom import Headroom, install

        global _GET_BATCH
        headroom = Headroom()
        install(training, headroom)
        _GET_BATCH = headroom.timed("get_batch", _GET_BATCH)
        wrap_train_step(training, opts.profile_from, opts.profile_steps, headroom, opts.headroom_from)
        first = next(iter(inspect.signature(pretrain).parameters))
        _STATE["phase"] = "pretrain"
        print(f"[engine] megatron-lm: megatron.training from {_STATE['versions']['megatron_training_from']}, "
              f"pretrain(first parameter {first!r})", flush=True)
        if first == "cfg_container":  # 0.18+: pretrain_gpt.py builds a config container from the args
            from megatron.training.argument_utils import gpt_config_from_args, pretrain_cfg_container_from_args
            from megatron.training.arguments import parse_and_validate_args

            args = parse_and_validate_args(args_defaults={"tokenizer_type": "NullTokenizer"})
            container = pretrain_cfg_container_from_args(args, gpt_config_from_args(args))
            pretrain(container, train_valid_test_datasets_provider, ModelType.encoder_or_decoder, forward_step)
        else:  # 0.16-0.17: pretrain parses the args itself
            pretrain(train_valid_test_datasets_provider, model_provider, ModelType.encoder_or_decoder, forward_step,
                     args_defaults={"tokenizer_type": "NullTokenizer"})

    return run_recorded(body)
