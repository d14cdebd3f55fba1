"""recommend: the Quick Decision, each recommendation explained and clean."""

import pytest

from skill_tools.config.era import era_for
from skill_tools.config.readers import read_text
from skill_tools.recommend import recommend

CUR = era_for("0.19.2")


@pytest.mark.parametrize("text,impl,scope", [
    ("model:\n  num_layers: 2\n  attention_dropout: 0.0\n", "full_iteration", []),
    ("model:\n  num_moe_experts: 8\n  moe_token_dispatcher_type: alltoall\n", "transformer_engine", ["moe_router", "moe_preprocess"]),
    ("model:\n  recompute_granularity: full\n  recompute_method: uniform\n  recompute_num_layers: 1\n", "full_iteration", []),
    ("model:\n  cpu_offloading: true\n", "none", []),
    ("model:\n  variable_seq_lengths: true\n", "none", []),
    ("inference:\n  num_cuda_graphs: -1\nmodel:\n  num_layers: 2\n", "local", []),
])
def test_quick_decision(text, impl, scope):
    rec = recommend(read_text(text), CUR)
    assert (rec.impl, rec.scope) == (impl, scope) and rec.ok and rec.reason


def test_inference_gets_block_scope():
    rec = recommend(read_text("inference:\n  num_cuda_graphs: -1\nmodel:\n  num_layers: 2\n"), CUR)
    assert rec.plan.changes["model.inference_cuda_graph_scope"] == "block"
