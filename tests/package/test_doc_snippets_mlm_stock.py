"""Megatron-LM doc snippets appended to NVIDIA's own functional-test launches, judged by Megatron-LM.

Every ``torchrun … pretrain_gpt.py`` snippet of the installed era is appended to stock launches
of that era (``MODEL_ARGS`` of Megatron-LM's functional tests at the era's tag, extracted by
``scripts/extract_mlm_stock_launches.py`` into ``tests/fixtures/stock/mlm_launches.json``), then
goes through ``parse_and_validate_args`` (every assert Megatron-LM applies before it builds the
model) and ``core_transformer_config_from_args`` (``TransformerConfig.__post_init__``). Later
flags win in argparse, so the snippet's graph flags replace the launch's own.

Skips where ``megatron.training`` is not importable (the legacy env ships megatron-core only).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from test_doc_snippets import ALL_BLOCKS, ERA_VERSIONS, Snippet, _installed_era

megatron_training = pytest.importorskip("megatron.training.arguments",
                                        reason="megatron.training (Megatron-LM's parser) is not importable here")

try:
    import transformer_engine.pytorch  # noqa: F401
    _HAVE_TE = True
except Exception:  # noqa: BLE001 -- any failure means "no usable TE here"
    _HAVE_TE = False

REPO = Path(__file__).resolve().parents[2]
LAUNCHES = json.loads((REPO / "tests" / "fixtures" / "stock" / "mlm_launches.json").read_text())["launches"]
ERA_TAG = {"0.19": "core_v0.19.0", "0.16": "core_v0.16.1"}
WORLD_SIZE = 8  # the functional tests run on one 8-GPU node


#: Megatron-LM entry points whose flags all come from ``megatron/training/arguments.py``.
SCRIPTS = ("pretrain_gpt.py", "examples/inference/gpt/gpt_dynamic_inference.py")


def mlm_snippets() -> list[Snippet]:
    return [s for s in ALL_BLOCKS if s.lang == "bash" and s.eras and any(x in s.body for x in SCRIPTS)]


def snippet_flags(s: Snippet) -> list[str]:
    tokens = shlex.split(s.body)
    start = next(i for i, t in enumerate(tokens) if t in SCRIPTS)
    return tokens[start + 1:]


def launch_kind(s: Snippet) -> str | None:
    """``launches=dense|moe`` in the info string: which stock launches the snippet is for."""
    import re

    m = re.search(r"\blaunches=(dense|moe)\b", s.info)
    return m.group(1) if m else None


def _cases():
    era = _installed_era()
    out = []
    for s in mlm_snippets():
        if era not in s.eras:
            continue
        for launch in LAUNCHES:
            if launch["tag"] != ERA_TAG[era]:
                continue
            if launch_kind(s) and launch_kind(s) != ("moe" if "--num-experts" in launch["argv"] else "dense"):
                continue
            out.append(pytest.param(s, launch, id=f"{s.id}-{launch['case'].split('/')[-1]}"))
    return out


def test_launch_facts_cover_both_eras() -> None:
    assert {launch["tag"] for launch in LAUNCHES} == set(ERA_TAG.values())
    assert {e for s in mlm_snippets() for e in s.eras} == set(ERA_VERSIONS)
    assert all(launch_kind(s) for s in mlm_snippets()), "every Megatron-LM snippet says launches=dense|moe"


def _validated_args_016(monkeypatch, arguments, argv: list[str]):
    import warnings

    for key, value in (("RANK", "0"), ("WORLD_SIZE", str(WORLD_SIZE)), ("LOCAL_RANK", "0")):
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(arguments, "get_device_arch_version", lambda: 9)
    monkeypatch.setattr("sys.argv", ["pretrain_gpt.py", *argv])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        args = arguments.parse_args()
        arguments.validate_args(args, {"tokenizer_type": "NullTokenizer"})
    return args


@pytest.mark.parametrize(("snippet", "launch"), _cases())
def test_snippet_on_stock_launch_passes_megatron_lm(monkeypatch, snippet: Snippet, launch: dict) -> None:
    from megatron.training import arguments

    if not _HAVE_TE and any(a == "--num-experts" or a.startswith("--fp8") for a in launch["argv"]):
        pytest.skip("megatron-core asks Transformer Engine's version for MoE/FP8 launches; TE is not importable here")
    # MoE launches with grouped GEMM ask the GPU for its compute capability: answer for an H100/H200.
    monkeypatch.setattr("torch.cuda.get_device_capability", lambda *a, **k: (9, 0))
    for key, value in launch["env"].items():  # the launch's own ENV_VARS (NCCL_ALGO, CUDA_DEVICE_MAX_CONNECTIONS...)
        monkeypatch.setenv(key, value)
    argv = [*launch["argv"], "--mock-data", "--vocab-size", "50304", *snippet_flags(snippet)]
    if hasattr(arguments, "parse_and_validate_args"):  # 0.18+
        from conftest import validated_megatron_lm_args as _validated_args

        args, _ = _validated_args(monkeypatch, argv, world_size=WORLD_SIZE)
    else:  # 0.16-0.17: parse_args, then validate_args
        args = _validated_args_016(monkeypatch, arguments, argv)
    config = arguments.core_transformer_config_from_args(args)
    assert config.cuda_graph_impl != "none"
