"""A tiny GPT pretrain ``ConfigContainer`` built from Megatron Bridge's own classes, as a user's
recipe function builds one: the Bridge oracle's base and the ``bridge`` engine's recipe.

It follows Bridge's ``vanilla_gpt_pretrain_config`` (``recipes/gpt/h100/vanilla_gpt.py`` in
megatron-bridge 0.6.2: "a minimal baseline that mirrors Megatron-LM pretrain_gpt.py defaults",
bare ``GPTModelProvider``, NullTokenizer, mock data since ``blend`` is None) and its optimizer
helper ``distributed_fused_adam_with_cosine_annealing`` (recipes/utils/optimizer_utils.py
l.100-167), with the sizes, iterations and output folders set here. It is written out rather than
imported because importing anything under ``megatron.bridge.recipes`` runs the package
``__init__``, which imports every recipe family, the diffusion ones included (``diffusers``).

Imports Bridge only when called.
"""

from __future__ import annotations

from typing import Any

#: The recipe's sizes unless a caller says otherwise.
DEFAULTS: dict[str, Any] = {"num_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "ffn_hidden_size": 256,
                            "seq_length": 128, "vocab_size": 8192, "train_iters": 10, "micro_batch_size": 1,
                            "global_batch_size": 1, "seed": 1234, "lr": 3e-4, "log_interval": 1}


def tiny_gpt_recipe(**sizes: Any) -> Any:
    """A ConfigContainer with no checkpoint saving, no tensorboard and mock GPT data."""
    from megatron.core.distributed import DistributedDataParallelConfig

    from megatron.bridge.models.gpt_provider import GPTModelProvider
    from megatron.bridge.training.config import (
        CheckpointConfig, ConfigContainer, DistributedInitConfig, GPTDatasetConfig, LoggerConfig,
        OptimizerConfig, RNGConfig, SchedulerConfig, TokenizerConfig, TrainingConfig, ValidationConfig,
    )

    s = {**DEFAULTS, **sizes}
    model = GPTModelProvider(num_layers=s["num_layers"], hidden_size=s["hidden_size"],
                             num_attention_heads=s["num_attention_heads"], ffn_hidden_size=s["ffn_hidden_size"],
                             seq_length=s["seq_length"], vocab_size=s["vocab_size"])
    optimizer = OptimizerConfig(optimizer="adam", lr=s["lr"], min_lr=0.1 * s["lr"], weight_decay=0.1, bf16=True,
                                fp16=False, adam_beta1=0.9, adam_beta2=0.95, adam_eps=1e-8,
                                use_distributed_optimizer=False, clip_grad=1.0)
    scheduler = SchedulerConfig(start_weight_decay=0.033, end_weight_decay=0.033, weight_decay_incr_style="constant",
                                lr_decay_style="constant", lr_warmup_iters=0, lr_warmup_init=0.0,
                                override_opt_param_scheduler=True)
    return ConfigContainer(
        model=model,
        train=TrainingConfig(train_iters=s["train_iters"], global_batch_size=s["global_batch_size"],
                             micro_batch_size=s["micro_batch_size"]),
        validation=ValidationConfig(eval_interval=100000, eval_iters=0),
        optimizer=optimizer,
        scheduler=scheduler,
        ddp=DistributedDataParallelConfig(check_for_nan_in_grad=True, grad_reduce_in_fp32=True,
                                          overlap_grad_reduce=False, overlap_param_gather=False,
                                          use_distributed_optimizer=False),
        dataset=GPTDatasetConfig(random_seed=s["seed"], seq_length=s["seq_length"], blend=None, blend_per_split=None,
                                 split="9999,8,2", dataloader_type="single", reset_position_ids=False,
                                 reset_attention_mask=False, eod_mask_loss=False),
        logger=LoggerConfig(log_interval=s["log_interval"], tensorboard_dir=None),
        tokenizer=TokenizerConfig(tokenizer_type="NullTokenizer", vocab_size=s["vocab_size"]),
        checkpoint=CheckpointConfig(save_interval=None, save=None, load=None, ckpt_format="torch_dist"),
        rng=RNGConfig(seed=s["seed"]),
        dist=DistributedInitConfig(),
        mixed_precision="bf16_mixed",
    )
