"""CLI side of engine ``megatron-lm``: flags from the canonical config, one torchrun per variant,
results from the real run's own log.

The graph flags of a variant are what ``skill-tools apply --format megatron_lm`` prints for it
(:func:`skill_tools.overrides.plan` then :func:`skill_tools.config.render.render`), so every run
puts the renderer in front of Megatron-LM's real argument parser. Model size, mock data and the
iteration count are the engine's, and are recorded with the result.

Results are read from the run's log with :mod:`skill_tools.logs` (iteration lines: step time,
loss, grad norm; capture messages; memory reports; failure signatures), plus the engine's
sidecar (CUDA-graph capture and replay counts, CUDA-event step times, peak memory, versions).
"""

from __future__ import annotations

import importlib.util
import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skill_tools.config.era import Era
from skill_tools.config.model import CanonicalConfig
from skill_tools.config.render import render
from skill_tools.errors import InputError
from skill_tools.harness.engines.framework_run import (data_parallel, first_measured, record_from_log, run_files,
                                                       set_loop_settings, train_iters, trial_record)
from skill_tools.harness.isolation import run_isolated, torchrun_command
from skill_tools.harness.records import read_sidecar
from skill_tools.harness.runner import WORKER_ENV
from skill_tools.harness.spec import SIZES, VariantSpec

ENGINE_MODULE = "skill_tools.harness.engines.megatron_lm"
#: What runs each variant, as plans and dry runs state it.
WORKER = f"torchrun -m {ENGINE_MODULE} (megatron.training.pretrain)"


@dataclass(frozen=True)
class Training:
    """Where ``megatron.training`` comes from for one run."""

    source: str  # "wheel" | "checkout"
    path: str | None  # the checkout (PYTHONPATH entry), None for the wheel

    def env(self) -> dict[str, str]:
        if self.path is None:
            return {}
        return {"PYTHONPATH": os.pathsep.join(p for p in (self.path, os.environ.get("PYTHONPATH", "")) if p)}


def locate_training(megatron_lm: str | Path | None, era: Era) -> Training:
    """``megatron.training`` from ``--megatron-lm PATH`` or the installed wheel; InputError (exit 2)
    naming the tag to check out when neither has it."""
    tag = f"core_v{era.mcore_version}"
    if megatron_lm is not None:
        root = Path(megatron_lm).expanduser().resolve()
        if not (root / "megatron" / "training" / "training.py").is_file():
            raise InputError("--megatron-lm", f"{root} has no megatron/training/training.py",
                             hint=f"point it at a Megatron-LM checkout of tag {tag} "
                                  f"(git clone -b {tag} https://github.com/NVIDIA/Megatron-LM)")
        return Training("checkout", str(root))
    if era.has("megatron_training_in_wheel"):
        if _wheel_has_training():
            return Training("wheel", None)
        raise InputError("--megatron-lm", "megatron.training is not importable here (megatron-core 0.18+ wheels ship "
                         "it; is megatron-core installed?)",
                         hint="pip install 'megatron-cuda-graphs-skill[gpu]', or pass --megatron-lm PATH to a "
                              f"Megatron-LM checkout of tag {tag}")
    raise InputError("--megatron-lm", f"megatron-core {era.mcore_version} wheels have no megatron.training "
                     "(0.16-0.17 ship only megatron.core; the wheel has it from 0.18)",
                     hint=f"check out Megatron-LM at tag {tag} and pass --megatron-lm PATH "
                          "(its megatron/training, megatron/legacy and megatron/rl are used)")


def _wheel_has_training() -> bool:
    try:
        return importlib.util.find_spec("megatron.training") is not None
    except (ImportError, ValueError):
        return False


# --------------------------------------------------------------------------------------------
# Flags
# --------------------------------------------------------------------------------------------

def layout_problem(workload: str, size: str, nproc: int, microbatches: int, *, tp: int = 1, pp: int = 1,
                   ep: int = 1, vpp_layers: int | None = None) -> tuple[str, str] | None:
    """(what is wrong, the fix) for a parallel layout Megatron-LM would refuse, or None. Megatron-LM's
    own validate_args stays the judge at run time; this only refuses before any GPU time."""
    layers = SIZES[size].num_layers
    if min(nproc, tp, pp, ep, microbatches) < 1:
        return "sizes must be at least 1", "use positive --nproc/--tp/--pp/--ep/--microbatches"
    if nproc % (tp * pp):
        return (f"--nproc {nproc} is not a multiple of tp*pp = {tp * pp}",
                f"use --nproc {tp * pp} (or a multiple of it)")
    if ep > 1 and not workload.startswith("moe"):
        return "--ep needs an MoE workload", "add --workload moe or moe_droppad, or drop --ep"
    if ep > 1 and (nproc // pp) % ep:
        return (f"expert parallelism {ep} must divide the {nproc // pp} ranks of a pipeline stage",
                f"use --ep dividing {nproc // pp}")
    if layers % pp:
        return f"the {size} model has {layers} layers, not divisible into {pp} stages", "use --pp 2 or 4"
    if vpp_layers is not None:
        if pp < 2:
            return "--vpp-layers needs --pp > 1", "add --pp 2 or drop --vpp-layers"
        if layers % (pp * vpp_layers) or layers // (pp * vpp_layers) < 2:
            return (f"{layers} layers cannot form at least 2 virtual stages of {vpp_layers} layers per stage "
                    f"on {pp} stages", "use --vpp-layers 1")
        if microbatches % pp:
            return "interleaved pipelining needs --microbatches a multiple of --pp", f"use --microbatches {2 * pp}"
    return None


def loop_flags(spec: VariantSpec) -> list[str]:
    """The engine's data, optimizer and logging flags around a model (mock data, Adam, every step logged)."""
    return ["--global-batch-size", str(spec.micro_batch_size * spec.num_microbatches * data_parallel(spec)),
            "--train-iters", str(train_iters(spec)), "--lr", str(spec.lr), "--lr-decay-style", "constant",
            "--bf16", "--mock-data", "--tokenizer-type", "NullTokenizer",
            "--transformer-impl", "transformer_engine" if spec.layer_spec == "te" else "local",
            "--log-interval", "1", "--log-throughput", "--eval-iters", "0", "--eval-interval", "100000",
            "--split", "99,1,0", "--seed", str(spec.seed), "--no-gradient-accumulation-fusion"]


def model_flags(spec: VariantSpec) -> list[str]:
    """The model, data and loop flags: the user's layer shape and layout where the variant carries a
    plan (``bench --config``), else the engine's built-in model of ``spec.size``."""
    planned = spec.model_shape()
    if planned is not None:
        from skill_tools.config.shape_render import megatron_lm_shape_flags

        return megatron_lm_shape_flags(*planned) + loop_flags(spec)
    shape = spec.shape
    layers, hidden, heads, seq = shape.num_layers, shape.hidden_size, shape.num_attention_heads, shape.seq_length
    flags = [
        "--num-layers", str(layers), "--hidden-size", str(hidden), "--num-attention-heads", str(heads),
        "--seq-length", str(seq), "--max-position-embeddings", str(seq),
        "--micro-batch-size", str(spec.micro_batch_size),
        "--global-batch-size", str(spec.micro_batch_size * spec.num_microbatches * data_parallel(spec)),
        "--train-iters", str(train_iters(spec)), "--lr", str(spec.lr), "--lr-decay-style", "constant",
        "--bf16", "--mock-data", "--tokenizer-type", "NullTokenizer", "--vocab-size", str(shape.vocab_size),
        "--transformer-impl", "transformer_engine" if spec.layer_spec == "te" else "local",
        "--log-interval", "1", "--log-throughput", "--eval-iters", "0", "--eval-interval", "100000",
        "--split", "99,1,0", "--seed", str(spec.seed), "--no-gradient-accumulation-fusion",
        "--tensor-model-parallel-size", str(spec.tp),
    ]
    if spec.pp > 1:
        flags += ["--pipeline-model-parallel-size", str(spec.pp)]
    if spec.vpp_layers:
        flags += ["--num-layers-per-virtual-pipeline-stage", str(spec.vpp_layers)]
    if spec.ep > 1:
        flags += ["--expert-model-parallel-size", str(spec.ep)]
    if spec.workload.startswith("moe"):
        flags += ["--num-experts", str(shape.num_experts), "--moe-router-topk", str(shape.moe_topk),
                  "--moe-token-dispatcher-type", "alltoall", "--ffn-hidden-size", str(shape.ffn_hidden_size), "--moe-grouped-gemm", "--disable-bias-linear"]
        if spec.workload == "moe_droppad":
            flags += ["--moe-expert-capacity-factor", "1.0", "--moe-pad-expert-input-to-capacity"]
    return flags


def graph_config(spec: VariantSpec, era: Era) -> CanonicalConfig:
    """The variant's graph settings as the canonical config ``skill-tools apply`` would write."""
    from skill_tools.overrides import override_values, plan

    cfg = CanonicalConfig(source=f"variant {spec.name}")
    if spec.impl != "none":
        scope = list(spec.modules) if spec.impl == "transformer_engine" else None
        if spec.impl == "local" and not spec.modules:
            scope = []
        p = plan(CanonicalConfig(), spec.impl, scope, era)
        for key, value in override_values(p.changes).items():
            if value is not None and not (key.startswith("model.cuda_graph") and value == []):
                cfg.set(key, value)
        cfg.unset("model.use_te_rng_tracker")  # Bridge's spelling; Megatron-LM reads rng.te_rng_tracker
    set_loop_settings(spec, cfg)
    return cfg


def graph_flags(spec: VariantSpec, era: Era) -> list[str]:
    """The rendered Megatron-LM flags of the variant's graph settings, as argv."""
    cfg = graph_config(spec, era)
    if not cfg.values:
        return []
    text = render(cfg, "megatron_lm")
    return shlex.split(text.replace("\\\n", " "))


def run_flags(spec: VariantSpec, era: Era) -> list[str]:
    """Everything Megatron-LM is given for one variant: the engine's model flags, then the graph flags."""
    return model_flags(spec) + graph_flags(spec, era)


def _worker_env() -> dict[str, str]:
    """The environment every engine run gets (CUDA_DEVICE_MAX_CONNECTIONS=1 among it: Megatron-LM
    asserts it for TP before Blackwell, arguments.py l.1393-1414 in megatron-core 0.19.2)."""
    return dict(WORKER_ENV)


def flags_config(spec: VariantSpec, era: Era) -> CanonicalConfig:
    """What Megatron-LM will be given, read back as a canonical config (front end megatron_lm), so
    the validator judges the run's own flags, Megatron-LM-only rules included."""
    from skill_tools.config.readers import read_text

    return read_text(shlex.join(run_flags(spec, era)), "megatron_lm")


def engine_command(spec: VariantSpec, era: Era, sidecar: Path) -> tuple[list[str], list[str]]:
    """(the torchrun command, the Megatron-LM flags it passes)."""
    flags = run_flags(spec, era)
    ours = ["--sidecar", str(sidecar)]
    if spec.profile_steps:
        ours += ["--profile-from", str(first_measured(spec) + spec.steps), "--profile-steps", str(spec.profile_steps),
                 "--headroom-from", str(first_measured(spec))]
    return torchrun_command(ENGINE_MODULE, [*ours, "--", *flags], spec.nproc), flags


# --------------------------------------------------------------------------------------------
# Log -> the worker record the results aggregation reads
# --------------------------------------------------------------------------------------------


def worker_from_log(spec: VariantSpec, log_path: Path, sidecar: dict[str, Any] | None,
                    flags: list[str], training: Training) -> dict[str, Any]:
    """The per-run record of one Megatron-LM run (:func:`framework_run.record_from_log`)."""
    return record_from_log(spec, log_path, sidecar, flags, engine="megatron-lm", model_flags=len(model_flags(spec)),
                           training_source=training.source, training_path=training.path)


def run_one(spec: VariantSpec, trial: int, out_dir: Path, timeout_s: float, *, era: Era,
            training: Training, env: dict[str, str] | None = None) -> dict[str, Any]:
    """One isolated Megatron-LM run -> {"trial", "isolation", "worker"} (the proxy runner's shape)."""
    log_path, sidecar_path = run_files(spec, trial, out_dir)
    sidecar_path.parent.mkdir(parents=True, exist_ok=True)
    sidecar_path.unlink(missing_ok=True)
    command, flags = engine_command(spec, era, sidecar_path)
    iso = run_isolated(ENGINE_MODULE, [], nproc=spec.nproc, timeout_s=timeout_s, command=command,
                       env={**WORKER_ENV, **training.env(), **(env or {})}, log_path=log_path)
    return outcome(spec, trial, iso.to_dict(), log_path, sidecar_path, out_dir, flags, training)


def outcome(spec: VariantSpec, trial: int, iso_d: dict[str, Any], log_path: Path, sidecar_path: Path,
            out_dir: Path, flags: list[str], training: Training) -> dict[str, Any]:
    """{"trial", "isolation", "worker"} from a finished run's log and sidecar (also used to rebuild
    results from committed logs)."""
    worker = (worker_from_log(spec, log_path, read_sidecar(sidecar_path), flags, training)
              if log_path.exists() else None)
    return trial_record(trial, iso_d, log_path, out_dir, worker)


def workload_record(spec: VariantSpec, trials: int) -> dict[str, Any]:
    """What the engine ran in place of the user's model: recorded with every result."""
    shape = spec.shape
    layers, hidden, heads, seq = shape.num_layers, shape.hidden_size, shape.num_attention_heads, shape.seq_length
    return {
        "engine": "megatron-lm", "loop": "megatron.training.pretrain (Megatron-LM's own training loop)",
        "workload": spec.workload, "size": spec.size,
        "shape": {"num_layers": layers, "hidden_size": hidden, "num_attention_heads": heads, "seq_length": seq,
                  "vocab_size": shape.vocab_size, "micro_batch_size": spec.micro_batch_size},
        "steps": spec.steps, "trials": trials, "warmup_steps": spec.warmup_steps,
        "settle_steps": spec.settle_steps, "train_iters": train_iters(spec), "nproc": spec.nproc,
        "tp": spec.tp, "pp": spec.pp, "vpp_layers": spec.vpp_layers, "ep": spec.ep, "dp": data_parallel(spec),
        "num_microbatches": spec.num_microbatches, "layer_spec": spec.layer_spec, "precision": "bf16",
        "data": "MockGPTDataset (--mock-data, NullTokenizer)",
        "optimizer": "Megatron-LM's default (adam)", "ddp": "Megatron-LM's default",
        "step_time_source": "elapsed time per iteration (ms) from the log, --log-interval 1",
        "model_flags": model_flags(spec), "env": _worker_env(), "order": "interleaved by trial",
    } | (planned_record(spec) if spec.model is not None else {})


def planned_record(spec: VariantSpec) -> dict[str, Any]:
    """``bench --config``: the user's (fitted) shape instead of a built-in size, and where it came from."""
    model = spec.model or {}
    shape = {k: v for k, v in model.get("shape", {}).items() if k != "origin"}
    return {"workload": "config", "size": model.get("name"), "shape": shape,
            "layout": {k: v for k, v in model.get("layout", {}).items() if k != "origin"},
            "config": model.get("source"), "plan": model.get("plan"),
            "precision": shape.get("precision", "bf16")}
