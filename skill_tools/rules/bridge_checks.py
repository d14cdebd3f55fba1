"""Checks enforced by Megatron-LM's arguments.py, Megatron Bridge's ConfigContainer/provider, or at
run time (RNG tracker, NaN checks, packing, allocator, delayed wgrad, FSDP): each fires only where
its enforcer is in the user's path."""

from __future__ import annotations

from typing import Any, Iterator

from skill_tools.config.model import as_name_list
from skill_tools.config.era import GraphIntent, intent_values
from skill_tools.numbers import as_number
from skill_tools.rules.context import Ctx


# --------------------------------------------------------------------------------------------
# Megatron-LM arguments.py / Bridge ConfigContainer / runtime checks
# --------------------------------------------------------------------------------------------


def _te_rng(ctx: Ctx) -> bool:
    return bool(ctx.cfg.get("rng.te_rng_tracker") or ctx.cfg.get("model.use_te_rng_tracker"))


def te_rng_tracker_required(ctx: Ctx) -> Iterator[dict[str, Any]]:
    """Enforced by Bridge only (GPTModelProvider.provide(), gpt_provider.py l.234 @v0.6.0; validate()
    sets both keys when either is on, config.py l.1271). Megatron-LM seeds a graph-safe RNG tracker
    itself whenever graphs are on (initialize.py ``use_cudagraphable_rng=args.cuda_graph_impl !=
    "none"``, core_v0.16.0-0.19.0), and a bare TransformerConfig has no such check (only the local
    CudaGraphManager asserts a graph-safe tracker at capture)."""
    if not ctx.intent.enabled or _te_rng(ctx) or ctx.frontend == "megatron_lm":
        return
    if ctx.frontend == "model_only":
        if ctx.intent.impl == "local" and ctx.model.get("inference_rng_tracker"):
            return  # CudaGraphManager also accepts MCore's inference RNG tracker (cuda_graphs.py@core_v0.19.0)
        # an agent's answer and its question's stated setup (the evals' formats) are judged as the
        # Bridge config the question is about
        asked = ctx.cfg.fmt.startswith("answer") or ctx.cfg.fmt == "setup"
        yield {"impl": ctx.intent.impl, "severity": None if asked else "info",
               "fix": {"model.use_te_rng_tracker": True, "rng.te_rng_tracker": True} if asked
               else {"model.use_te_rng_tracker": True}}
        return
    explicit_off = ctx.cfg.get("rng.te_rng_tracker") is False or ctx.cfg.get("model.use_te_rng_tracker") is False
    unseen = ctx.unknown("rng.te_rng_tracker") and ctx.unknown("model.use_te_rng_tracker")
    yield {"impl": ctx.intent.impl, "severity": "info" if unseen and not explicit_off else None,
           "fix": {"model.use_te_rng_tracker": True, "rng.te_rng_tracker": True}}


def nan_check_full_iteration(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if not ctx.intent.full_iteration or ctx.sim.stopped:
        return
    loss = ctx.cfg.get("rerun_state_machine.check_for_nan_in_loss")
    if loss is False:
        return
    if loss is None and ctx.frontend == "megatron_lm" and ctx.cfg.get("model.fp16") is True \
            and not ctx.cfg.get("model.loss_scale"):
        return  # --fp16 with dynamic loss scaling: Megatron-LM's arguments.py turns the check off itself
    fix = {"rerun_state_machine.check_for_nan_in_loss": False, "ddp.check_for_nan_in_grad": False}
    if loss is None and ctx.frontend == "model_only":
        yield {"state": "not set (defaults to True)", "severity": "warning", "fix": fix}
    elif loss is None and ctx.unknown("rerun_state_machine.check_for_nan_in_loss"):
        yield {"state": "not set here (the recipe these overrides apply to decides)", "severity": "info", "fix": fix}
    else:
        yield {"state": "True" if loss else "not set (defaults to True)", "fix": fix}


def nan_grad_check_full_iteration(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.intent.full_iteration and not ctx.sim.stopped and ctx.cfg.get("ddp.check_for_nan_in_grad") is True:
        yield {"fix": {"ddp.check_for_nan_in_grad": False}}


def bridge_scope_without_impl(ctx: Ctx) -> Iterator[dict[str, Any]]:
    """Bridge's ``validate_cuda_graph_configuration`` clears scope/modules when the impl is "none"
    (megatron-bridge 0.6.2 utils/cuda_graph.py), before megatron-core could read or convert them."""
    if ctx.frontend != "bridge" or not ctx.dropped:
        return
    names = [n for k in sorted(ctx.dropped) for n in as_name_list(ctx.dropped[k])]
    if not names:
        return
    if "full_iteration" in names:
        intent = GraphIntent(impl="full_iteration")
    else:
        intent = GraphIntent(impl="transformer_engine", modules=tuple(n for n in names if n != "full_iteration_inference"))
    fix = {k: v for k, v in intent_values(intent, ctx.era).items()
           if k.startswith("model.cuda_graph") and v is not None}
    yield {"keys": ["model.cuda_graph_impl", *sorted(ctx.dropped)], "names": names, "fix": fix}


def bridge_local_scoped(ctx: Ctx) -> Iterator[dict[str, Any]]:
    """Bridge's ``validate_cuda_graph_configuration`` (megatron-bridge 0.6.2 utils/cuda_graph.py), on
    the raw ``cuda_graph_impl``: it runs before megatron-core's post-init, so it speaks first."""
    if ctx.frontend != "bridge" or ctx.cfg.get("model.cuda_graph_impl") != "local":
        return
    if not ctx.era.has("bridge_rejects_local_scoped"):
        return  # Bridge 0.3.x-0.5.x accept it (no validate_cuda_graph_configuration before v0.6.0)
    names = as_name_list(ctx.cfg.get("model.cuda_graph_modules")) + as_name_list(ctx.cfg.get("model.cuda_graph_scope"))
    mods = [n for n in dict.fromkeys(names) if n not in ("full_iteration", "full_iteration_inference", "full")]
    inference = set(as_name_list(ctx.cfg.get("model.inference_cuda_graph_scope"))) & {"layer", "block"}
    if "full_iteration" in names or (not mods and inference):
        return
    yield {"scopes": f" with scopes {mods}" if mods else "",
           "fix": {"model.cuda_graph_impl": "transformer_engine", **ctx.set_modules(mods or [])}}


def _expandable(ctx: Ctx) -> bool:
    return "expandable_segments:true" in ctx.env.get("PYTORCH_CUDA_ALLOC_CONF", "").replace(" ", "").lower()


def expandable_segments_nccl_register(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if not ctx.intent.enabled or ctx.sim.stopped or not _expandable(ctx) or ctx.env.get("NCCL_GRAPH_REGISTER") == "0":
        return
    fix = {"env.NCCL_GRAPH_REGISTER": "0"}
    if ctx.intent.impl == "transformer_engine":
        yield {"impl": ctx.intent.impl, "fix": fix}
    elif ctx.intent.impl in ("local", "full_iteration") and not ctx.era.since("0.19"):
        yield {"impl": ctx.intent.impl, "severity": "warning", "fix": fix,
               "extra": " (megatron-core < 0.19 asserts this for the local impl on GPUs before Blackwell)"}


def fsdp_v2_cuda_graphs(ctx: Ctx) -> Iterator[dict[str, Any]]:
    """Bridge config.py l.1484-1485, l.1072-1075 and l.1181-1188 @067f987."""
    cfg = ctx.cfg
    fsdp = cfg.get("ddp.use_megatron_fsdp") or cfg.get("dist.use_megatron_fsdp")
    if ctx.frontend != "bridge" or not fsdp or cfg.get("ddp.megatron_fsdp_version") != 2:
        return
    graphs = (not ctx.sim.stopped and ctx.sim.impl != "none") or bool(cfg.get("ddp.megatron_fsdp_cuda_graph_mode"))
    if graphs or cfg.get("optimizer.optimizer_cuda_graph"):
        yield {"fix": {"ddp.megatron_fsdp_version": 1}}


def gtp_graphs_node_priority(ctx: Ctx) -> Iterator[dict[str, Any]]:
    """arguments.py l.1474-1504 @core_v0.19.0: on Blackwell and later, GTP with any graph impl
    asserts the environment variable (the GPU is not known here: a warning)."""
    if ctx.frontend != "megatron_lm" or not ctx.era.since("0.19") or not ctx.intent.enabled or ctx.sim.stopped:
        return
    m = ctx.model
    gtp = any((as_number(m.get(k)) or 0) > 1  # a non-number is argparse's refusal, not ours
              for k in ("gtp_weight_remat_size", "tensor_parallel_num_weight_shards",
                        "expert_tensor_parallel_num_weight_shards"))
    if gtp and ctx.env.get("CUDA_GRAPHS_USE_NODE_PRIORITY") != "1":
        yield {"fix": {"env.CUDA_GRAPHS_USE_NODE_PRIORITY": "1"}}


def _packing(ctx: Ctx) -> tuple[bool, bool, bool]:
    offline = bool(ctx.cfg.get("dataset.enable_offline_packing")) or any(
        k.startswith("dataset.offline_packing_specs.") for k in ctx.cfg.values) and ctx.cfg.get("dataset.enable_offline_packing") is not False
    pad_max = ctx.cfg.get("dataset.pad_to_max_length") is True or ctx.cfg.get("dataset.dataset_kwargs.pad_to_max_length") is True
    pad_cu = ctx.cfg.get("dataset.offline_packing_specs.pad_cu_seqlens") is True or ctx.cfg.get("dataset.packed_sequence_specs.pad_cu_seqlens") is True
    return offline, pad_max, pad_cu


def _packed_specs(ctx: Ctx) -> bool:
    return ctx.cfg.get("dataset.packed_sequence") is True or any(
        k.startswith(("dataset.packed_sequence_specs.", "dataset.offline_packing_specs.")) and ctx.cfg.get(k) is not None
        for k in ctx.cfg.values if k.endswith(("packed_sequence_size", "packed_train_data_path", "pad_cu_seqlens")))


def packed_seq_pad_to_max_length(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.sim.stopped or not ctx.intent.enabled:
        return
    offline, pad_max, _ = _packing(ctx)
    training_graphs = ctx.intent.full_iteration or ctx.intent.impl == "transformer_engine"
    if (offline or _packed_specs(ctx)) and training_graphs and not pad_max:
        yield {"fix": {"dataset.pad_to_max_length": True}}


def packed_seq_pad_cu_seqlens(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.sim.stopped or not ctx.intent.enabled:
        return
    offline, _, pad_cu = _packing(ctx)
    captures_attn = ctx.intent.full_iteration or (
        ctx.intent.impl == "transformer_engine" and (not ctx.intent.modules or "attn" in ctx.intent.modules))
    if (offline or _packed_specs(ctx)) and captures_attn and not pad_cu:
        key = "dataset.offline_packing_specs.pad_cu_seqlens" if offline else "dataset.packed_sequence_specs.pad_cu_seqlens"
        yield {"fix": {key: True, "dataset.pad_to_max_length": True}}


def energon_packing(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.intent.enabled and ctx.cfg.get("dataset.packing_buffer_size") is not None:
        yield {"fix": {"model.cuda_graph_impl": "none"}}


def variable_seq_lengths(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if not ctx.intent.enabled or ctx.sim.stopped:
        return
    if ctx.model.get("variable_seq_lengths") or ctx.cfg.get("dataset.enable_in_batch_packing"):
        yield {"fix": {"model.cuda_graph_impl": "none"}}


def thd_packed_te_scoped(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.intent.impl == "transformer_engine" and not ctx.sim.stopped and ctx.model.get("qkv_format") == "thd":
        _, _, pad_cu = _packing(ctx)
        if not pad_cu:
            yield {"fix": {"dataset.packed_sequence_specs.pad_cu_seqlens": True, "dataset.pad_to_max_length": True}}


def _delay_wgrad(ctx: Ctx) -> bool:
    return bool(ctx.model.get("delay_wgrad_compute") or ctx.cfg.get("comm_overlap.delay_wgrad_compute"))


def _wgrad_in_graph(ctx: Ctx) -> bool:
    mods = ctx.intent.modules
    return "attn" in mods or ("moe_router" in mods and ctx.model.get("moe_shared_expert_intermediate_size") is not None
                              and not ctx.model.get("moe_shared_expert_overlap"))


def _overlap_grad_reduce(ctx: Ctx) -> bool:
    return bool(ctx.cfg.get("ddp.overlap_grad_reduce") or ctx.cfg.get("comm_overlap.overlap_grad_reduce"))


def _delay_wgrad_checked(ctx: Ctx) -> bool:
    """Who asserts the delayed-wgrad graph rules: Megatron-LM's arguments.py from 0.17.0, and only
    with overlap_grad_reduce (l.1507-1531 @core_v0.17.0, l.1822-1846 @core_v0.19.0); Bridge's
    CommOverlapConfig whenever delay_wgrad_compute is set (comm_overlap.py l.520-557 @067f987)."""
    if ctx.frontend == "megatron_lm":
        return ctx.era.since("0.17") and _overlap_grad_reduce(ctx)
    return ctx.era.name == "current"


def delay_wgrad_te_version(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if not (ctx.intent.enabled and _delay_wgrad(ctx) and _wgrad_in_graph(ctx)) or ctx.sim.stopped or not _delay_wgrad_checked(ctx):
        return
    te = ctx.era.te_version
    if te is None:
        yield {"te": "unknown (Transformer Engine not installed here)", "severity": "info", "fix": {}}
    elif not ctx.era.te_since("2.12"):
        yield {"te": te, "fix": {}}


def delay_wgrad_grad_accum_fusion(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if (ctx.intent.enabled and not ctx.sim.stopped and _delay_wgrad(ctx) and _wgrad_in_graph(ctx) and _delay_wgrad_checked(ctx)
            and not ctx.model.get("gradient_accumulation_fusion", ctx.frontend == "megatron_lm")):
        yield {"fix": {"model.gradient_accumulation_fusion": True}, "assumed": ["model.gradient_accumulation_fusion"]}


def delay_wgrad_attn_bias(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if (ctx.intent.enabled and not ctx.sim.stopped and _delay_wgrad(ctx) and "attn" in ctx.intent.modules
            and _delay_wgrad_checked(ctx) and (ctx.model.get("add_bias_linear", True) or ctx.model.get("add_qkv_bias", False))):
        yield {"fix": {"model.add_bias_linear": False, "model.add_qkv_bias": False},
               "assumed": ["model.add_bias_linear", "model.add_qkv_bias"]}


def param_gather_optimizer_step_full_iteration(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.intent.full_iteration and not ctx.sim.stopped and ctx.cfg.get("optimizer.overlap_param_gather_with_optimizer_step"):
        yield {"fix": {"optimizer.overlap_param_gather_with_optimizer_step": False}}


def fsdp_full_iteration_param_sync(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if (ctx.intent.full_iteration and not ctx.sim.stopped and ctx.cfg.get("ddp.use_megatron_fsdp")
            and ctx.cfg.get("ddp.fsdp_all_gather_in_start_param_sync", True) is not False):
        yield {"fix": {"ddp.megatron_fsdp_cuda_graph_mode": True, "ddp.fsdp_all_gather_in_start_param_sync": False}}


def inference_launch_non_local_impl(ctx: Ctx) -> Iterator[dict[str, Any]]:
    """The dynamic engine returns before capturing unless cuda_graph_impl is "local"
    (dynamic_engine.py l.425-426, text_generation_controller.py l.315 @core_v0.19.0)."""
    from skill_tools.rules import workload

    if ctx.sim.stopped or ctx.sim.impl not in ("transformer_engine", "full_iteration"):
        return
    work = workload.read(ctx.cfg, ctx.model)
    if work.task == "inference":
        yield {"impl": ctx.sim.impl, "why": work.evidence.get("task", "inference"),
               "fix": {"model.cuda_graph_impl": "local", "model.cuda_graph_modules": []}}
