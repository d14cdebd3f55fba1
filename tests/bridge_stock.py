"""Megatron Bridge's stock recipes, built on a CPU machine without the Hugging Face Hub.

Bridge 0.6 recipes build their model with ``AutoBridge.from_hf_pretrained("<hub id>")``, which
needs the model's ``config.json``. Tests have no network, so each hub id a tested recipe names
maps to a local ``config.json`` written with transformers' own config class and the published
dimensions of that checkpoint (only the architecture is needed; no weights are read). Everything
else -- the recipe's parallelism, MoE, recompute and CUDA-graph settings, the provider Bridge
derives from the config, ``ConfigContainer.validate()`` and the provider's ``finalize()`` -- is
Bridge's and megatron-core's own code.

Importable only where ``megatron.bridge`` imports; callers skip otherwise (see ``bridge_skip``).
"""

from __future__ import annotations

import importlib
import os
import re
import tempfile
from functools import cache
from pathlib import Path

#: (module under megatron.bridge.recipes, recipe function) per family the guidance names.
STOCK_RECIPES: dict[str, tuple[str, str]] = {
    "llama3-8b": ("llama.h100.llama3", "llama3_8b_pretrain_2gpu_h100_bf16_config"),
    "qwen3-30b-a3b": ("qwen.h100.qwen3_moe", "qwen3_30b_a3b_pretrain_16gpu_h100_bf16_config"),
    "deepseek-v3": ("deepseek.h100.deepseek_v3", "deepseek_v3_pretrain_256gpu_h100_bf16_32nodes_config"),
    "gpt-oss-20b": ("gpt_oss.h100.gpt_oss", "gpt_oss_20b_pretrain_16gpu_h100_bf16_config"),
    "nemotronh-8b": ("nemotronh.h100.nemotronh", "nemotronh_8b_pretrain_2gpu_h100_bf16_config"),
    "qwen25-vl-7b": ("qwen_vl.h100.qwen25_vl", "qwen25_vl_7b_sft_2gpu_h100_bf16_config"),
}


def _hf_configs():
    """Hub id -> transformers config with that checkpoint's published architecture."""
    import transformers as tf

    llama3_8b = dict(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32,
                     num_key_value_heads=8, vocab_size=128256, rope_theta=500000.0, max_position_embeddings=8192,
                     rms_norm_eps=1e-5, architectures=["LlamaForCausalLM"])
    return {
        "meta-llama/Meta-Llama-3-8B": lambda: tf.LlamaConfig(**llama3_8b),
        "Qwen/Qwen3-30B-A3B": lambda: tf.Qwen3MoeConfig(
            hidden_size=2048, intermediate_size=6144, moe_intermediate_size=768, num_hidden_layers=48,
            num_attention_heads=32, num_key_value_heads=4, head_dim=128, num_experts=128, num_experts_per_tok=8,
            vocab_size=151936, rope_theta=1000000.0, max_position_embeddings=40960, norm_topk_prob=True,
            architectures=["Qwen3MoeForCausalLM"]),
        # transformers' DeepseekV3Config defaults are DeepSeek-V3's architecture.
        "deepseek-ai/DeepSeek-V3": lambda: tf.DeepseekV3Config(architectures=["DeepseekV3ForCausalLM"]),
        "openai/gpt-oss-20b": lambda: tf.GptOssConfig(
            num_hidden_layers=24, num_local_experts=32, num_experts_per_tok=4, hidden_size=2880,
            intermediate_size=2880, num_attention_heads=64, num_key_value_heads=8, head_dim=64,
            sliding_window=128, vocab_size=201088, architectures=["GptOssForCausalLM"]),
        # transformers' Qwen2_5_VLConfig defaults are Qwen2.5-VL-7B's.
        "Qwen/Qwen2.5-VL-7B-Instruct": lambda: tf.Qwen2_5_VLConfig(architectures=["Qwen2_5_VLForConditionalGeneration"]),
    }


@cache
def _config_dir(hub_id: str) -> str:
    configs = _hf_configs()
    if hub_id not in configs:
        raise KeyError(f"no local config.json for {hub_id!r}; add it to tests/bridge_stock.py")
    d = Path(tempfile.mkdtemp(prefix="bridge-stock-")) / hub_id.replace("/", "--")
    configs[hub_id]().save_pretrained(d)
    return str(d)


@cache
def _patch_autobridge() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from megatron.bridge import AutoBridge

    original = AutoBridge.from_hf_pretrained.__func__

    def from_local(cls, path, *args, **kwargs):
        kwargs.pop("revision", None)
        local = path if os.path.isdir(str(path)) else _config_dir(str(path))
        return original(cls, local, *args, **kwargs)

    AutoBridge.from_hf_pretrained = classmethod(from_local)


def stock_config(family: str):
    """A fresh ConfigContainer from the family's stock Bridge recipe, exactly as the recipe builds it."""
    _patch_autobridge()
    module, func = STOCK_RECIPES[family]
    return getattr(importlib.import_module(f"megatron.bridge.recipes.{module}"), func)()


#: What ``torch.cuda.get_device_properties(0)`` says on the H100 the recipes are written for.
H100 = type("DeviceProperties", (), {"major": 9, "minor": 0, "name": "NVIDIA H100 80GB HBM3"})()


def world_size(family: str) -> int:
    """GPUs the recipe is written for (its name says so: ``..._16gpu_h100_...``)."""
    return int(re.search(r"_(\d+)gpu_", STOCK_RECIPES[family][1]).group(1))


def finalize_like_pretrain(cfg, family: str) -> None:
    """Bridge's own pre-run path: ``runtime_config_update`` (mixed precision, data-parallel size,
    comm overlap, then ``ConfigContainer.validate()``, which finalizes the model provider), at the
    recipe's world size. Raises whatever Bridge or megatron-core raises."""
    from unittest import mock

    import torch
    from megatron.bridge.training.config import runtime_config_update

    old = os.environ.get("WORLD_SIZE")
    os.environ["WORLD_SIZE"] = str(world_size(family))
    try:
        # The recipes are the H100 ones; Bridge asks the device only to gate flex-dispatcher backends.
        with mock.patch.object(torch.cuda, "get_device_properties", return_value=H100):
            runtime_config_update(cfg)
    finally:
        if old is None:
            os.environ.pop("WORLD_SIZE", None)
        else:
            os.environ["WORLD_SIZE"] = old


def bridge_version() -> str | None:
    try:
        from importlib.metadata import version

        import megatron.bridge  # noqa: F401  (the import is what must work)
        return version("megatron-bridge")
    except Exception:  # noqa: BLE001 -- any import failure means "no Bridge here"
        return None


def bridge_skip_reason() -> str | None:
    """Why Bridge-backed tests cannot run here, or None when they can."""
    try:
        import megatron.bridge  # noqa: F401
        import transformer_engine.pytorch  # noqa: F401
    except Exception as exc:  # noqa: BLE001
        return (f"megatron.bridge with Transformer Engine is not importable here ({type(exc).__name__}: "
                f"{str(exc)[:160]}); run them where megatron-bridge imports with a loadable TE torch extension")
    return None
