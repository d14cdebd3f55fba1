"""The oracle separates "megatron-core rejects this for a graph reason" from "could not judge"
(missing Transformer Engine, a field only the args-to-config step or a checkpoint fills, no GPU, a
value left to the environment); the latter never says DISAGREES. Launches go through Megatron-LM's
own parse_args/validate_args/core_transformer_config_from_args."""

import pytest

from skill_tools.rules.oracle import judged


def _v(error, rule=None):
    return {"ok": False, "error_type": "AssertionError", "error": error, "rule": rule}


@pytest.mark.parametrize("error", [
    "Only transformer-engine>=1.7.0 supports MoE FP8 training, but your version is 0.0.0.",
    "When using pipeline parallelism, pipeline_dtype must be specified",
    "num_moe_experts must be non None to use expert-parallel.",
    "Found no NVIDIA driver on your system.",
    "argument --tokenizer-type: invalid choice: '${TOKENIZER_TYPE}'",
])
def test_non_graph_failures_are_not_judged(error):
    ok, why = judged(_v(error))
    assert not ok and why


def test_graph_failures_are_judged():
    assert judged(_v("cuda_graph_modules must be empty when cuda_graph_impl=\"full_iteration\"", "full-iteration-modules"))[0]
    assert judged(_v("moe cuda graph is only supported for MoE."))[0]
    assert judged({"ok": True, "error": None, "rule": None})[0]


def test_a_launch_goes_through_megatron_lm_args_to_config():
    pytest.importorskip("megatron.training")
    from skill_tools.api import validate

    base = ("python pretrain_gpt.py --num-layers 2 --hidden-size 64 --num-attention-heads 4 --seq-length 128 "
            "--max-position-embeddings 128 --micro-batch-size 1 --transformer-impl local ")
    good = validate(base + "--cuda-graph-impl local --cuda-graph-modules attn\n", "0.19.2", oracle=True).oracle
    assert good["path"] == "megatron_lm_args" and good["ok"] and good["agrees"] is True
    bad = validate(base + "--cuda-graph-impl local --cuda-graph-modules full_iteration --inference-cuda-graph-scope block\n",
                   "0.19.2", oracle=True).oracle
    assert not bad["ok"] and bad["stage"] == "validate_args" and bad["agrees"] is True
