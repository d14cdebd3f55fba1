"""CLI side of engine ``bridge``: Hydra overrides from the canonical config, one torchrun per
variant running Megatron Bridge's own ``pretrain``, results from the run's own log.

The variant's graph settings are what ``skill-tools apply --format hydra`` prints for a Bridge
config (:func:`skill_tools.overrides.plan`, then :func:`skill_tools.config.render.render`), and the
engine (:mod:`skill_tools.harness.engines.bridge`) hands them, with the engine's model, data and loop
overrides, to Bridge's ``process_config_with_overrides`` — the path of Bridge's
``scripts/training/run_recipe.py`` (``recipe_runner.apply_cli_overrides``) — so Hydra's and
Bridge's parsers judge every rendered override, and ``runtime_config_update`` /
``ConfigContainer.validate()``, ``GPTModelProvider.provide()`` and ``train.py``'s capture path
(``TECudaGraphHelper``, ``FullCudaGraphWrapper``, ``_delete_cuda_graphs``) run for real.

Bridge logs iterations with Megatron-LM's format (``training/utils/train_utils.py``
``training_log`` l.1173-1225 in 0.6.2: `` iteration {:8d}/{:8d} |``, ``elapsed time per iteration
(ms): {:.1f} |``, ``{key}: {:.6E} |`` per loss, ``grad norm: {:.3f} |``), so
:mod:`skill_tools.logs` reads it; ``train.py`` ``_delete_cuda_graphs`` prints "Deleting CUDA graphs"
at teardown, recorded as ``teardown_observed``. The worker record has the shape
:func:`skill_tools.harness.engines.framework_run.record_from_log` gives, with ``engine: bridge``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from skill_tools.config.era import Era
from skill_tools.config.model import CanonicalConfig
from skill_tools.config.render import render
from skill_tools.errors import InputError
from skill_tools.harness.engines.framework_run import (data_parallel, first_measured, record_from_log, run_files,
                                                       set_loop_settings, train_iters, trial_record)
from skill_tools.harness.isolation import run_isolated, torchrun_command
from skill_tools.harness.records import Sidecar, read_sidecar
from skill_tools.harness.runner import WORKER_ENV
from skill_tools.harness.spec import VariantSpec
from skill_tools.logs.reader import read_lines

ENGINE_MODULE = "skill_tools.harness.engines.bridge"
#: What runs each variant, as plans and dry runs state it.
WORKER = f"torchrun -m {ENGINE_MODULE} (megatron.bridge.training.pretrain)"
#: The variant that spells full iteration the 0.16-0.17 way (``local`` + ``["full_iteration"]``),
#: which Bridge's ``is_full_iteration_cuda_graph`` accepts and megatron-core 0.18+ converts.
LEGACY_FULL_ITERATION = "full_iteration:local-spelling"
TEARDOWN_MESSAGE = "Deleting CUDA graphs"


def model_overrides(spec: VariantSpec) -> list[str]:
    """The engine's model, data and loop settings as Bridge Hydra overrides (what stands in for the
    user's model; the recipe itself is :func:`skill_tools.rules.bridge_recipe.tiny_gpt_recipe`), or the
    user's layer shape and layout where the variant carries a plan (``bench --config``)."""
    planned = spec.model_shape()
    if planned is not None:
        from skill_tools.config.shape_render import bridge_shape_overrides

        gbs = spec.micro_batch_size * spec.num_microbatches * data_parallel(spec)
        return bridge_shape_overrides(*planned) + [
            "model.gradient_accumulation_fusion=false", f"train.train_iters={train_iters(spec)}",
            f"train.global_batch_size={gbs}", f"optimizer.lr={spec.lr}", f"optimizer.min_lr={spec.lr}",
            f"rng.seed={spec.seed}", f"dataset.random_seed={spec.seed}", "logger.log_interval=1",
            "logger.log_throughput=true"]
    shape = spec.shape
    seq = shape.seq_length
    gbs = spec.micro_batch_size * spec.num_microbatches * data_parallel(spec)
    out = [f"model.num_layers={shape.num_layers}", f"model.hidden_size={shape.hidden_size}",
           f"model.num_attention_heads={shape.num_attention_heads}", f"model.ffn_hidden_size={shape.ffn_hidden_size}",
           f"model.seq_length={seq}", f"dataset.seq_length={seq}",
           f"model.vocab_size={shape.vocab_size}", f"tokenizer.vocab_size={shape.vocab_size}",
           f"model.tensor_model_parallel_size={spec.tp}", "model.gradient_accumulation_fusion=false",
           f"train.train_iters={train_iters(spec)}", f"train.micro_batch_size={spec.micro_batch_size}",
           f"train.global_batch_size={gbs}", f"optimizer.lr={spec.lr}", f"optimizer.min_lr={spec.lr}",
           f"rng.seed={spec.seed}", f"dataset.random_seed={spec.seed}", "logger.log_interval=1",
           "logger.log_throughput=true"]
    if spec.ep > 1:
        out.append(f"model.expert_model_parallel_size={spec.ep}")
    if spec.workload.startswith("moe"):
        out += [f"model.num_moe_experts={shape.num_experts}", f"model.moe_router_topk={shape.moe_topk}",
                "model.moe_token_dispatcher_type=alltoall",
                "model.moe_grouped_gemm=true", "model.add_bias_linear=false"]
        if spec.workload == "moe_droppad":
            out += ["model.moe_expert_capacity_factor=1.0", "model.moe_pad_expert_input_to_capacity=true"]
    return out


def graph_config(spec: VariantSpec, era: Era) -> CanonicalConfig:
    """The variant's graph settings as ``skill-tools apply`` writes them for a Bridge config."""
    from skill_tools.overrides import override_values, plan

    cfg = CanonicalConfig(source=f"variant {spec.name}", fmt="hydra")
    if spec.impl != "none":
        scope = list(spec.modules) if spec.impl == "transformer_engine" else ([] if spec.impl == "local" else None)
        p = plan(CanonicalConfig(fmt="hydra"), spec.impl, scope, era)
        for key, value in override_values(p.changes).items():
            if value is not None:
                cfg.set(key, value)
    if spec.name == LEGACY_FULL_ITERATION:
        cfg.set("model.cuda_graph_impl", "local")
        cfg.unset("model.cuda_graph_modules")
        cfg.set("model.cuda_graph_scope", ["full_iteration"])
    set_loop_settings(spec, cfg)
    return cfg


def graph_overrides(spec: VariantSpec, era: Era) -> list[str]:
    cfg = graph_config(spec, era)
    return [line for line in render(cfg, "hydra").splitlines() if line.strip()] if cfg.values else []


def run_overrides(spec: VariantSpec, era: Era) -> list[str]:
    """Everything Bridge is given for one variant: the engine's model overrides, then the graph overrides."""
    return model_overrides(spec) + graph_overrides(spec, era)


def overrides_config(spec: VariantSpec, era: Era) -> CanonicalConfig:
    """A variant's whole override list read back as the Bridge config it is."""
    from skill_tools.config.readers import read_text

    return read_text("\n".join(run_overrides(spec, era)), fmt="hydra", source=f"variant {spec.name}")


def refuse_illegal(specs: list[VariantSpec], era: Era) -> None:
    """InputError (exit 2, no GPU time) where the catalog, reading a variant's whole override list as
    the Bridge config it is, finds an error (Bridge-only rules included: this engine runs Bridge)."""
    from skill_tools.rules.engine import check

    for spec in specs:
        errors = [f for f in check(overrides_config(spec, era), era) if f.severity == "error"]
        if errors:
            raise InputError(f"variant {spec.name}", "refused before any GPU time: "
                             + "; ".join(f"[{f.rule}] {f.message}" for f in errors),
                             hint="pick variants Bridge accepts (skill-tools validate shows the fixes)")


def engine_command(spec: VariantSpec, era: Era, sidecar: Path) -> tuple[list[str], list[str]]:
    """(the torchrun command, the Hydra overrides it passes)."""
    overrides = run_overrides(spec, era)
    ours = ["--sidecar", str(sidecar), "--layer-spec", spec.layer_spec]
    planned = spec.model_shape()
    if planned is not None:  # a callable Hydra cannot spell: the GPU half sets it on the provider
        from skill_tools.config.shape_render import activation_callable

        ours += ["--activation-func", activation_callable(planned[0])]
    if spec.profile_steps:
        first = first_measured(spec) + spec.steps
        ours += ["--profile-from", str(first), "--profile-steps", str(spec.profile_steps)]
    return torchrun_command(ENGINE_MODULE, [*ours, "--", *overrides], spec.nproc), overrides


def worker_from_log(spec: VariantSpec, log_path: Path, sidecar: Sidecar | None,
                    overrides: list[str]) -> dict[str, Any]:
    """The per-run record the results aggregation reads (:func:`framework_run.record_from_log`)."""
    record = record_from_log(spec, log_path, sidecar, overrides, engine="bridge",
                             model_flags=len(model_overrides(spec)), training_source=None, training_path=None)
    text = "".join(read_lines(log_path))  # plain or gzip (committed logs are gzipped)
    side = sidecar or Sidecar()
    record.update({
        "overrides": overrides, "capture_stream": "Megatron Bridge's own",
        "bridge_version": (side.versions or {}).get("megatron_bridge"),
        "teardown_observed": TEARDOWN_MESSAGE in text,
        "bridge_graph_config": side.graph_config,
    })
    record.pop("flags", None)
    m = re.search(r"Megatron Bridge supports \S+ only for[^\n]*|Transformer engine's RNG tracker is required[^\n]*|"
                  r"check_for_nan_in_loss must be disabled[^\n]*", text)
    if m:
        record["bridge_refusal"] = m.group(0)
    return record


def run_one(spec: VariantSpec, trial: int, out_dir: Path, timeout_s: float, *, era: Era,
            env: dict[str, str] | None = None) -> dict[str, Any]:
    """One isolated Bridge run -> {"trial", "isolation", "worker"} (the runner's shape)."""
    log_path, sidecar_path = run_files(spec, trial, out_dir)
    sidecar_path.parent.mkdir(parents=True, exist_ok=True)
    sidecar_path.unlink(missing_ok=True)
    command, overrides = engine_command(spec, era, sidecar_path)
    iso = run_isolated(ENGINE_MODULE, [], nproc=spec.nproc, timeout_s=timeout_s, command=command,
                       env={**WORKER_ENV, **(env or {})}, log_path=log_path)
    worker = (worker_from_log(spec, log_path, read_sidecar(sidecar_path), overrides)
              if log_path.exists() else None)
    return trial_record(trial, iso.to_dict(), log_path, out_dir, worker)


def workload_record(spec: VariantSpec, trials: int) -> dict[str, Any]:
    """What the engine ran in place of the user's model: recorded with every result."""
    from skill_tools.harness.engines.megatron_lm.cli import workload_record as megatron_lm_record

    record = megatron_lm_record(spec, trials)
    record.update({"engine": "bridge", "loop": "megatron.bridge.training.pretrain.pretrain with gpt_step.forward_step "
                   "(Megatron Bridge's own training loop)",
                   "recipe": "skill_tools.rules.bridge_recipe.tiny_gpt_recipe (Bridge's vanilla_gpt recipe classes)",
                   "data": "Bridge GPTDatasetConfig with blend=None (mock data), NullTokenizer",
                   "optimizer": "Bridge OptimizerConfig adam, constant LR", "ddp": "Bridge recipe DDP config",
                   "override_path": "megatron.bridge.training.utils.omegaconf_utils.process_config_with_overrides",
                   "model_overrides": model_overrides(spec)})
    record.pop("model_flags", None)
    return record
