"""Shared pytest setup: GPU tests skip cleanly where no CUDA device is present."""

from __future__ import annotations

import functools
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent


@functools.lru_cache(maxsize=1)
def _gpu_reason() -> str | None:
    try:
        import torch
    except Exception as exc:  # pragma: no cover - torch is a runtime dependency
        return f"torch not importable: {exc}"
    if not torch.cuda.is_available():
        return "no CUDA GPU on this machine (gpu tests run on a GPU host: pytest -m gpu)"
    return None


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "gpu" in item.keywords:
            reason = _gpu_reason()
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture
def repo() -> pathlib.Path:
    return REPO


#: The measurement plan of the GPU tests: short, but every phase (warmup, capture, settle,
#: measured, profiled) runs.
GPU_PLAN = dict(size="tiny", steps=6, warmup_steps=3, settle_steps=1, profile_steps=2)


def _gpu_run(tmp_path_factory, label: str, workload: str, stream: str, names: tuple[str, ...]) -> dict:
    from skill_tools.harness.engines.proxy import cli as proxy_cli
    from skill_tools.harness.runner import run_variants
    from skill_tools.harness.spec import named_variant

    specs = [named_variant(n, workload=workload, capture_stream=stream, **GPU_PLAN) for n in names]
    doc = run_variants(specs, trials=1, out_dir=tmp_path_factory.mktemp(label), timeout_s=240, progress=False,
                       run=proxy_cli.run_one, workload=proxy_cli.workload_record(specs[0], 1))
    return {v["name"]: v for v in doc["variants"]} | {"_doc": doc}


# One interleaved run per (workload, stream), shared by the GPU tests: each variant is a worker
# process of about half a minute, so tests read one run instead of starting their own.
@pytest.fixture(scope="session")
def dense_shared_run(tmp_path_factory):
    return _gpu_run(tmp_path_factory, "dense-shared", "dense", "shared",
                    ("eager", "full_iteration", "full_iteration+optimizer", "full_iteration+capturable-adam",
                     "eager+capturable-adam", "te:attn+mlp"))


@pytest.fixture(scope="session")
def dense_default_run(tmp_path_factory):
    return _gpu_run(tmp_path_factory, "dense-default", "dense", "default", ("eager", "local", "full_iteration"))


@pytest.fixture(scope="session")
def moe_shared_run(tmp_path_factory):
    return _gpu_run(tmp_path_factory, "moe-shared", "moe", "shared", ("eager", "te:attn+moe_router+moe_preprocess"))


@pytest.fixture(scope="session")
def droppad_shared_run(tmp_path_factory):
    return _gpu_run(tmp_path_factory, "droppad-shared", "moe_droppad", "shared", ("eager", "te:moe"))


def _mlm_run(tmp_path_factory, label: str, workload: str, names: tuple[str, ...]) -> dict:
    """One interleaved run of Megatron-LM's own pretrain() (engine megatron-lm), installed wheel."""
    from skill_tools.config.era import resolve_era
    from skill_tools.harness.engines import get
    from skill_tools.harness.runner import run_variants
    from skill_tools.harness.spec import named_variant

    engine = get("megatron-lm")
    specs = [named_variant(n, engine=engine.name, workload=workload, capture_stream="default", **GPU_PLAN)
             for n in names]
    doc = run_variants(specs, trials=1, out_dir=tmp_path_factory.mktemp(label), timeout_s=300, progress=False,
                       run=engine.runner(resolve_era(None)), workload=engine.workload_record(specs[0], 1))
    return {v["name"]: v for v in doc["variants"]} | {"_doc": doc}


@pytest.fixture(scope="session")
def mlm_dense_run(tmp_path_factory):
    return _mlm_run(tmp_path_factory, "mlm-dense", "dense",
                    ("eager", "full_iteration", "te:attn+mlp", "te:layer", "local"))


@pytest.fixture(scope="session")
def mlm_moe_run(tmp_path_factory):
    return _mlm_run(tmp_path_factory, "mlm-moe", "moe", ("eager", "te:attn+moe_router+moe_preprocess"))


@pytest.fixture(scope="session")
def bridge_dense_run(tmp_path_factory):
    """One interleaved run of Megatron Bridge's own pretrain() (engine bridge); skipped where
    megatron.bridge does not import (it needs Transformer Engine and the wheels of
    benchmarks/stage-bridge-gpu.sh)."""
    from skill_tools.config.era import resolve_era
    from skill_tools.harness.engines import get
    from skill_tools.harness.runner import run_variants
    from skill_tools.harness.spec import named_variant
    from skill_tools.rules.bridge_oracle import availability

    ok, why = availability()
    if not ok:
        pytest.skip(f"Bridge: {why}")
    engine = get("bridge")
    specs = [named_variant(n, engine=engine.name, workload="dense", capture_stream="default", **GPU_PLAN)
             for n in ("eager", "te:attn+mlp", "full_iteration", "full_iteration:local-spelling")]
    doc = run_variants(specs, trials=1, out_dir=tmp_path_factory.mktemp("bridge-dense"), timeout_s=400,
                       progress=False, run=engine.runner(resolve_era(None)),
                       workload=engine.workload_record(specs[0], 1))
    return {v["name"]: v for v in doc["variants"]} | {"_doc": doc}


@functools.lru_cache(maxsize=1)
def megatron_lm_parser():
    """(parser, None) with Megatron-LM's own argument parser from the installed megatron-core 0.19
    wheel, or (None, why not). Built with add_megatron_arguments: no parse_args side effects."""
    try:
        import argparse
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from megatron.training.arguments import add_megatron_arguments
    except Exception as exc:  # noqa: BLE001 - no wheel with megatron.training here
        return None, f"megatron.training.arguments is not importable here: {exc}"
    from skill_tools.config.era import era_for, installed_version

    version = installed_version("megatron-core") or "0.0.0"
    if era_for(version).version_tuple < (0, 19, 0):
        return None, f"installed megatron-core {version} is not 0.19 (the real-parser checks are for the 0.19 wheel)"
    return add_megatron_arguments(argparse.ArgumentParser(allow_abbrev=False, exit_on_error=False)), None


@pytest.fixture
def real_mlm():
    """Megatron-LM's own 0.19 argument parser, or a skip saying why not."""
    parser, why = megatron_lm_parser()
    if parser is None:
        pytest.skip(why)
    return parser


def assert_captured_and_replayed(run: dict, name: str, *, loss_parity: bool = True) -> dict:
    """A GPU run's variant ``name`` captured and replayed every step, its eager baseline did neither,
    and (unless ``loss_parity`` is off) its loss stayed within the results' tolerance of eager."""
    from skill_tools.harness.results import LOSS_TOLERANCE

    eager, graphed = run["eager"], run[name]
    assert eager["error_class"] is None, eager["evidence"]
    assert graphed["error_class"] is None, (graphed["error_class"], graphed["evidence"])
    assert graphed["captured"] and graphed["graphs_count"] > 0
    assert graphed["replayed"] and graphed["replays_per_step"] >= 1
    assert eager["graphs_count"] == 0 and not eager["replayed"]
    if loss_parity:
        assert graphed["loss_max_abs_delta"] is not None and graphed["loss_max_abs_delta"] <= LOSS_TOLERANCE
    return graphed


def validated_megatron_lm_args(monkeypatch, flags: list[str], world_size: int = 1):
    """Megatron-LM's parse_and_validate_args on ``flags`` (every assert it applies before building
    the model), with its global state reset before and after."""
    import warnings

    import megatron.core.num_microbatches_calculator as nmc
    import megatron.training.global_vars as global_vars
    from megatron.training.arguments import parse_and_validate_args

    from skill_tools.harness.runner import WORKER_ENV

    for key, value in (("RANK", "0"), ("WORLD_SIZE", str(world_size)), ("LOCAL_RANK", "0"), *WORKER_ENV.items()):
        monkeypatch.setenv(key, value)
    # TP > 1 asks the GPU's architecture (CUDA_DEVICE_MAX_CONNECTIONS advice): answer for the H200 (sm90).
    monkeypatch.setattr("megatron.training.arguments.get_device_arch_version", lambda: 9)
    monkeypatch.setattr("sys.argv", ["pretrain", *flags])
    global_vars.destroy_global_vars()
    nmc.destroy_num_microbatches_calculator()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            args = parse_and_validate_args(args_defaults={"tokenizer_type": "NullTokenizer"})
        return args, nmc.get_num_microbatches()
    finally:
        global_vars.destroy_global_vars()
        nmc.destroy_num_microbatches_calculator()
