"""The constructor-field table (skill_tools/data/mcore_dataclass_fields.json, extracted from
Megatron-LM's tags by scripts/extract_mcore_dataclass_fields.py) against the installed
megatron-core's own classes: the real signature is the judge of the table."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest

TABLE = json.loads((Path(__file__).resolve().parents[2] / "skill_tools" / "data" / "mcore_dataclass_fields.json")
                   .read_text(encoding="utf-8"))["classes"]
_TAGS = {"0.16": "core_v0.16.1", "0.17": "core_v0.17.0", "0.18": "core_v0.18.0", "0.19": "core_v0.19.0"}
_CLASSES = {
    "TransformerConfig": "megatron.core.transformer.transformer_config",
    "InferenceConfig": "megatron.core.inference.config",
    "DistributedDataParallelConfig": "megatron.core.distributed.distributed_data_parallel_config",
    "OptimizerConfig": "megatron.core.optimizer.optimizer_config",
}


@pytest.mark.legacy
@pytest.mark.parametrize("cls", sorted(_CLASSES))
def test_the_table_matches_the_installed_megatron_core(cls):
    core = pytest.importorskip("megatron.core")
    tag = _TAGS.get(".".join(core.__version__.split(".")[:2]))
    if tag is None:
        pytest.skip(f"megatron-core {core.__version__} has no tag in the table")
    try:
        module = __import__(_CLASSES[cls], fromlist=[cls])
    except ImportError:
        assert tag not in TABLE[cls], f"{cls} is in the table at {tag} but megatron-core {core.__version__} lacks it"
        return
    params = {p for p in inspect.signature(getattr(module, cls).__init__).parameters if p != "self" and not p.startswith("_")}
    assert set(TABLE[cls][tag]) == params
