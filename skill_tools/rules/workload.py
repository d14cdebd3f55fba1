"""What a config runs, read from every place it can say so: the model's kind (dense, MoE, hybrid
Mamba), the task (pretraining, finetuning, inference/decode) and, for each, the evidence.

Inputs that define the model (``num_moe_experts``, ``hybrid_override_pattern``) are read first;
inputs that only name it (a ``run_script.py -m/-mr`` line, overrides on a Bridge recipe, the
Megatron-LM entry point) are matched against ``data/model_families.json``. Inference intent comes
from an ``inference`` section or scope, the entry point (``gpt_dynamic_inference.py``,
``train_rl.py``) and ``--inference-*``/decode/RL flags.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill_tools.config.model import CanonicalConfig

FAMILIES = Path(__file__).resolve().parent.parent / "data" / "model_families.json"
#: Keys only an inference, decode or RL run writes (NeMo-RL's ``mcore_generation_config`` is the
#: generation side of an RL policy).
_INFERENCE_KEYS = re.compile(r"^inference\.|^model\.inference_(?!rng_tracker)|num_tokens_to_generate|decode_only|"
                             r"^model\.prompts$|^model\.(perform_rl_step|grpo_|rl_)|generation_config\.")


@functools.lru_cache(maxsize=1)
def _families() -> dict[str, Any]:
    return json.loads(FAMILIES.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Workload:
    moe: bool
    hybrid: bool
    task: str  # "pretrain" | "finetune" | "inference"
    evidence: dict[str, str] = field(default_factory=dict)


def _names(cfg: CanonicalConfig) -> str:
    parts = [cfg.get("meta.model_family_name"), cfg.get("meta.model_recipe_name"), cfg.get("meta.task"),
             cfg.script]
    return " ".join(str(p).lower() for p in parts if p)


def read(cfg: CanonicalConfig, model: dict[str, Any]) -> Workload:
    fam = _families()
    names = _names(cfg)
    ev: dict[str, str] = {}
    pattern = str(model.get("hybrid_override_pattern") or model.get("hybrid_layer_pattern") or "")
    n = model.get("num_moe_experts")
    ep = model.get("expert_model_parallel_size")
    if isinstance(n, int) and not isinstance(n, bool) and n > 1:
        moe = True
        ev["moe"] = f"num_moe_experts={n}"
    elif "E" in pattern:
        moe, ev["moe"] = True, f"hybrid pattern {pattern[:24]!r} has MoE layers (E)"
    elif isinstance(ep, int) and not isinstance(ep, bool) and ep > 1:
        moe, ev["moe"] = True, f"expert_model_parallel_size={ep}"
    elif cfg.has("model.num_moe_experts"):
        moe = False
    else:
        m = re.search(fam["moe"], names)
        moe = bool(m)
        if m:
            ev["moe"] = f"named model {m.group(0)!r} is a mixture-of-experts model (data/model_families.json)"
    if "M" in pattern:
        hybrid, ev["hybrid"] = True, f"hybrid pattern {pattern[:24]!r} has Mamba layers (M)"
    elif re.search(fam["hybrid_scripts"], str(cfg.script or "")):
        hybrid, ev["hybrid"] = True, f"entry point {cfg.script}"
    else:
        m = re.search(fam["hybrid"], names)
        hybrid = bool(m) and not pattern
        if m and hybrid:
            ev["hybrid"] = f"named model {m.group(0)!r} is a hybrid Mamba model (data/model_families.json)"
    return Workload(moe=moe, hybrid=hybrid, task=_task(cfg, model, names, ev), evidence=ev)


def _task(cfg: CanonicalConfig, model: dict[str, Any], names: str, ev: dict[str, str]) -> str:
    fam = _families()
    if cfg.section("inference") or model.get("inference_cuda_graph_scope") not in (None, "none"):
        ev["task"] = "inference section or inference_cuda_graph_scope"
        return "inference"
    script = str(cfg.script or "")
    if script and re.search(fam["inference_scripts"], script.rsplit("/", 1)[-1].lower()):
        ev["task"] = f"entry point {script.rsplit('/', 1)[-1]}"
        return "inference"
    flags = [k for k in cfg.values if _INFERENCE_KEYS.search(k)]
    if flags:
        ev["task"] = f"inference/decode/RL settings ({', '.join(sorted(flags)[:3])})"
        return "inference"
    m = re.search(fam["finetune_words"], names)
    if m or cfg.section("peft") or model.get("sft") or cfg.get("dataset.packed_sequence"):
        ev["task"] = f"finetuning ({m.group(0) if m else 'peft/sft/packed sequences'})"
        return "finetune"
    return "pretrain"
