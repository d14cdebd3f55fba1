"""Command-line flag tables: Megatron-LM ``pretrain_*.py`` flags and Bridge's perf harness
``scripts/performance/run_script.py`` flags, both mapped to canonical dotted keys.

Sources (read, not copied): Megatron-LM ``megatron/training/arguments.py`` (core_v0.16.1,
core_v0.19.0; in 0.18+ most ``TransformerConfig`` fields become ``--field-name`` flags through the
argument-group factory, so unknown ``--foo-bar`` flags read as ``model.foo_bar``), Bridge
``scripts/translate_mlm_to_bridge.py`` (MLM arg -> ConfigContainer path table) and
``scripts/performance/argument_parser.py`` (perf-harness flags) at main @067f987.

These tables say what a flag *means* (its canonical keys); whether a flag exists at a version,
and which values it takes, is the upstream parsers' own table (:mod:`skill_tools.config.cli_tables`).
Rendering goes through those tables, so a flag listed here only for reading (``--no-te-rng-tracker``,
``--check-for-nan-in-loss-and-grad``: spellings people write that Megatron-LM does not have) is
never printed.
"""

from __future__ import annotations

from dataclasses import dataclass

# Kinds: "value" (one value), "list" (nargs='+' / space separated), "flag" (store_true),
# "flag_false" (store_true that sets the key False), "comma_list" (one comma-separated value).


@dataclass(frozen=True)
class Flag:
    keys: tuple[str, ...]
    kind: str = "value"
    value: object = None  # fixed value for flag kinds (None: True for "flag", False for "flag_false")


def _f(keys: str | tuple[str, ...], kind: str = "value", value: object = None) -> Flag:
    return Flag(keys if isinstance(keys, tuple) else (keys,), kind, value)


#: Megatron-LM flags whose canonical key is not simply ``model.<flag_with_underscores>``.
MEGATRON_LM: dict[str, Flag] = {
    "cuda-graph-scope": _f("model.cuda_graph_scope", "list"),
    "cuda-graph-modules": _f("model.cuda_graph_modules", "list"),
    "recompute-modules": _f("model.recompute_modules", "list"),
    "offload-modules": _f("model.offload_modules", "list"),
    "te-rng-tracker": _f(("rng.te_rng_tracker", "model.use_te_rng_tracker"), "flag"),
    "no-te-rng-tracker": _f(("rng.te_rng_tracker", "model.use_te_rng_tracker"), "flag_false"),
    "check-for-nan-in-loss-and-grad": _f(("rerun_state_machine.check_for_nan_in_loss", "ddp.check_for_nan_in_grad"), "flag"),
    "no-check-for-nan-in-loss-and-grad": _f(
        ("rerun_state_machine.check_for_nan_in_loss", "ddp.check_for_nan_in_grad"), "flag_false"),
    "recompute-activations": _f("model.recompute_granularity", "flag", "selective"),
    "num-experts": _f("model.num_moe_experts"),
    "disable-bias-linear": _f("model.add_bias_linear", "flag_false"),
    "no-gradient-accumulation-fusion": _f("model.gradient_accumulation_fusion", "flag_false"),
    "untie-embeddings-and-output-weights": _f("model.share_embeddings_and_output_weights", "flag_false"),
    "seq-length": _f(("dataset.seq_length", "model.seq_length")),
    "micro-batch-size": _f("train.micro_batch_size"),
    "global-batch-size": _f("train.global_batch_size"),
    "train-iters": _f("train.train_iters"),
    "eval-iters": _f("train.eval_iters"),
    "eval-interval": _f("train.eval_interval"),
    "manual-gc": _f("train.manual_gc", "flag"),
    "manual-gc-interval": _f("train.manual_gc_interval"),
    "seed": _f("rng.seed"),
    "use-distributed-optimizer": _f(("ddp.use_distributed_optimizer", "optimizer.use_distributed_optimizer"), "flag"),
    "overlap-grad-reduce": _f("ddp.overlap_grad_reduce", "flag"),
    "overlap-param-gather": _f("ddp.overlap_param_gather", "flag"),
    "overlap-param-gather-with-optimizer-step": _f("optimizer.overlap_param_gather_with_optimizer_step", "flag"),
    "use-megatron-fsdp": _f("ddp.use_megatron_fsdp", "flag"),
    "lr": _f("optimizer.lr"),
    "min-lr": _f("optimizer.min_lr"),
    "clip-grad": _f("optimizer.clip_grad"),
    "optimizer-cuda-graph": _f("optimizer.optimizer_cuda_graph", "flag"),
    "data-path": _f("dataset.data_path", "list"),
    "mock-data": _f("dataset.mock", "flag"),
    "save": _f("checkpoint.save"),
    "load": _f("checkpoint.load"),
    "save-interval": _f("checkpoint.save_interval"),
    "log-interval": _f("logger.log_interval"),
    "tokenizer-type": _f("tokenizer.tokenizer_type"),
    "tokenizer-model": _f("tokenizer.tokenizer_model"),
    "vocab-size": _f("tokenizer.vocab_size"),
    "fp8-format": _f("model.fp8"),
    "bf16": _f(("model.bf16", "mixed_precision.bf16"), "flag"),
    "fp16": _f(("model.fp16", "mixed_precision.fp16"), "flag"),
    "inference-dynamic-batching-num-cuda-graphs": _f("inference.num_cuda_graphs"),
    "inference-cuda-graph-max-tokens": _f("inference.cuda_graph_max_tokens"),
    "inference-dynamic-batching-cuda-graph-max-tokens": _f("inference.cuda_graph_max_tokens"),
    "decode-only-cuda-graphs": _f("inference.decode_only_cuda_graphs", "flag"),
    "inference-dynamic-batching": _f("inference.dynamic_batching", "flag"),
    "rl-persist-cuda-graphs": _f("inference.rl_persist_cuda_graphs", "flag"),
    "rl-training-cuda-graphs": _f("inference.rl_training_cuda_graphs", "flag"),
    "rl-kv-cache-management-mode": _f("inference.rl_kv_cache_management_mode"),
}

#: Megatron-LM flags that read as a list even when not in the table above.
MEGATRON_LM_LIST_SUFFIXES = ("-modules",)

#: Bridge perf harness flags (``scripts/performance/argument_parser.py``, main @067f987).
RUN_SCRIPT: dict[str, Flag] = {
    "cuda_graph_impl": _f("model.cuda_graph_impl"),
    "cuda_graph_scope": _f("model.cuda_graph_scope", "comma_list"),
    "recompute_modules": _f("model.recompute_modules", "comma_list"),
    "recompute_num_layers": _f("model.recompute_num_layers"),
    "rl": _f("model.recompute_num_layers"),
    "activation_offload_layers": _f("model.cpu_offloading_num_layers"),
    "ol": _f("model.cpu_offloading_num_layers"),
    "tensor_model_parallel_size": _f("model.tensor_model_parallel_size"),
    "tp": _f("model.tensor_model_parallel_size"),
    "pipeline_model_parallel_size": _f("model.pipeline_model_parallel_size"),
    "pp": _f("model.pipeline_model_parallel_size"),
    "context_parallel_size": _f("model.context_parallel_size"),
    "cp": _f("model.context_parallel_size"),
    "virtual_pipeline_model_parallel_size": _f("model.virtual_pipeline_model_parallel_size"),
    "vp": _f("model.virtual_pipeline_model_parallel_size"),
    "expert_model_parallel_size": _f("model.expert_model_parallel_size"),
    "ep": _f("model.expert_model_parallel_size"),
    "expert_tensor_parallel_size": _f("model.expert_tensor_parallel_size"),
    "et": _f("model.expert_tensor_parallel_size"),
    "hidden_size": _f("model.hidden_size"),
    "num_layers": _f("model.num_layers"),
    "num_moe_experts": _f("model.num_moe_experts"),
    "micro_batch_size": _f("train.micro_batch_size"),
    "mb": _f("train.micro_batch_size"),
    "global_batch_size": _f("train.global_batch_size"),
    "gb": _f("train.global_batch_size"),
    "seq_length": _f(("dataset.seq_length", "model.seq_length")),
    "sl": _f(("dataset.seq_length", "model.seq_length")),
    "max_steps": _f("train.train_iters"),
    "ms": _f("train.train_iters"),
    "moe_a2a_overlap": _f(("comm_overlap.overlap_moe_expert_parallel_comm", "comm_overlap.delay_wgrad_compute")),
    "use_megatron_fsdp": _f("ddp.use_megatron_fsdp"),
    "moe_flex_dispatcher_backend": _f("model.moe_flex_dispatcher_backend"),
    "packed_sequence": _f("dataset.packed_sequence"),
    "use_tokendrop": _f("model.use_tokendrop"),
    "compute_dtype": _f("mixed_precision.compute_dtype"),
    "c": _f("mixed_precision.compute_dtype"),
    "model_family_name": _f("meta.model_family_name"),
    "m": _f("meta.model_family_name"),
    "model_recipe_name": _f("meta.model_recipe_name"),
    "mr": _f("meta.model_recipe_name"),
    "gpu": _f("meta.gpu"),
    "g": _f("meta.gpu"),
    "num_gpus": _f("meta.num_gpus"),
    "ng": _f("meta.num_gpus"),
    "task": _f("meta.task"),
}

#: run_script flags that take no value worth keeping (launcher plumbing); read and ignored.
RUN_SCRIPT_IGNORED = frozenset({
    "account", "a", "partition", "p", "time_limit", "t", "container_image", "i", "log_dir", "l",
    "custom_mounts", "cm", "hf_token", "hf", "nemo_home", "nh", "gpus_per_node", "gn", "detach",
    "dryrun", "d", "wandb_key", "wdk", "wandb_project_name", "wdp", "wandb_entity_name", "wde",
    "wandb_experiment_name", "wdj", "wandb_save_dir", "wds", "max_retries", "domain", "use_recipes",
    "enable_nsys", "en", "pytorch_profiler", "pyp", "enable_vboost", "vb", "config_variant", "cv",
})


def megatron_lm_flag(name: str) -> Flag:
    """The canonical key(s) of a Megatron-LM flag (without the leading dashes)."""
    if name in MEGATRON_LM:
        return MEGATRON_LM[name]
    if name.startswith("no-") and name[3:] in MEGATRON_LM and MEGATRON_LM[name[3:]].kind == "flag":
        return Flag(MEGATRON_LM[name[3:]].keys, "flag_false")
    kind = "list" if name.endswith(MEGATRON_LM_LIST_SUFFIXES) else "value"
    if name.startswith("no-"):
        return Flag(("model." + name[3:].replace("-", "_"),), "flag_false")
    return Flag(("model." + name.replace("-", "_"),), kind)


#: Megatron-LM options renamed between tags (old -> new), for did-you-mean where the spelling
#: differs too much for a close match. Source: ``--inference-cuda-graph-max-tokens`` is
#: megatron/training/arguments.py l.2059 @core_v0.19.0; the old name is in core_v0.16.0–0.17.0
#: and neither exists in core_v0.18.0 (skill_tools/data/megatron_lm_flags/).
MEGATRON_LM_RENAMES: dict[str, str] = {
    "inference-dynamic-batching-cuda-graph-max-tokens": "inference-cuda-graph-max-tokens",
    "inference-cuda-graph-max-tokens": "inference-dynamic-batching-cuda-graph-max-tokens",
}
