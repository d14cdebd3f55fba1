"""Every input format reads into the same canonical keys; bad input is an InputError with a line."""

from __future__ import annotations

import pytest

from skill_tools.config.readers import detect_format, read_object, read_path, read_text
from skill_tools.config.render import render
from skill_tools.errors import InputError

WANT = {"model.cuda_graph_impl": "transformer_engine", "model.cuda_graph_scope": ["attn", "mlp"], "rng.te_rng_tracker": True}

TEXTS = {
    "yaml": "model:\n  cuda_graph_impl: transformer_engine\n  cuda_graph_scope: [attn, mlp]\nrng:\n  te_rng_tracker: true\n",
    "json": '{"model": {"cuda_graph_impl": "transformer_engine", "cuda_graph_scope": ["attn", "mlp"]}, "rng": {"te_rng_tracker": true}}',
    "python": "cfg.model.cuda_graph_impl = 'transformer_engine'\ncfg.model.cuda_graph_scope = [CudaGraphScope.attn, 'mlp']\ncfg.rng.te_rng_tracker = True\n",
    "hydra": "model.cuda_graph_impl=transformer_engine model.cuda_graph_scope=[attn,mlp]\nrng.te_rng_tracker=true\n",
    "megatron_lm": "torchrun pretrain_gpt.py --cuda-graph-impl transformer_engine --cuda-graph-scope attn mlp --te-rng-tracker\n",
    "run_script": "python scripts/performance/run_script.py --cuda_graph_impl transformer_engine --cuda_graph_scope attn,mlp\n",
}


@pytest.mark.legacy
@pytest.mark.parametrize("fmt", sorted(TEXTS))
def test_each_format_reads_the_same_keys(fmt):
    assert detect_format(TEXTS[fmt]) == fmt
    cfg = read_text(TEXTS[fmt])
    for key, value in WANT.items():
        assert cfg.get(key) == value, (fmt, key, cfg.get(key))


@pytest.mark.legacy
def test_bridge_dump_targets_reduce_to_values():
    text = ("model:\n  _target_: megatron.bridge.models.llama.Llama32ModelProvider1B\n  cuda_graph_scope:\n"
            "  - _target_: megatron.core.transformer.enums.CudaGraphScope\n    _call_: true\n    _args_: [2]\n    _name_: attn\n"
            "  params_dtype:\n    _target_: torch.bfloat16\n    _call_: false\n")
    cfg = read_text(text)
    assert cfg.get("model.cuda_graph_scope") == ["attn"]
    assert cfg.get("model.params_dtype") == "torch.bfloat16"
    assert str(cfg.location("model.cuda_graph_scope")) == "<text>:3"


def test_flat_transformer_config_dict_and_objects():
    assert read_object({"cuda_graph_impl": "local"}).get("model.cuda_graph_impl") == "local"
    flat_env = read_object({"cuda_graph_impl": "local", "env": {"NCCL_GRAPH_REGISTER": "0"}})
    assert flat_env.env == {"NCCL_GRAPH_REGISTER": "0"}
    assert dict(flat_env) == dict(read_text('{"cuda_graph_impl": "local", "env": {"NCCL_GRAPH_REGISTER": "0"}}'))

    class Model:
        def __init__(self):
            self.cuda_graph_impl, self.num_layers = "transformer_engine", 2

    class Rng:
        def __init__(self):
            self.te_rng_tracker = True

    class Container:
        def __init__(self):
            self.model, self.rng = Model(), Rng()

    cfg = read_object(Container())
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine" and cfg.get("rng.te_rng_tracker") is True


def test_python_is_never_executed(tmp_path):
    marker = tmp_path / "ran"
    cfg = read_text(f"import os\nos.system('touch {marker}')\ncfg.model.cuda_graph_impl = 'local'\n")
    assert not marker.exists() and cfg.get("model.cuda_graph_impl") == "local"


PYTEST_SNIPPET = """import pytest
from megatron.core.transformer import TransformerConfig

BASE = dict(num_layers=2, moe_pad_expert_input_to_capacity=True, cuda_graph_impl="transformer_engine")


def test_accepted():
    TransformerConfig(**BASE, cuda_graph_modules=["attn", "moe"])


def test_refused():
    with pytest.raises(AssertionError):
        TransformerConfig(**BASE, cuda_graph_modules=["moe", "moe_router"])
"""


def test_python_reads_unpacked_mappings_and_skips_configs_a_test_expects_to_fail():
    cfg = read_text(PYTEST_SNIPPET, source="test_moe.py")
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine"
    assert cfg.get("model.moe_pad_expert_input_to_capacity") is True
    assert cfg.get("model.cuda_graph_modules") == ["attn", "moe"]


def test_run_script_implies_what_the_harness_sets():
    cfg = read_text(TEXTS["run_script"])
    assert cfg.get("model.use_te_rng_tracker") is True
    assert cfg.get("rerun_state_machine.check_for_nan_in_loss") is False


def test_env_from_flags_line():
    cfg = read_text("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True torchrun pretrain_gpt.py --cuda-graph-impl local\n")
    assert cfg.env["PYTORCH_CUDA_ALLOC_CONF"] == "expandable_segments:True"


@pytest.mark.parametrize("text,line", [("model:\n  a: [1, 2\n", 3), ('{"model": {\n "a": 1,,}}', 2)])
def test_syntax_errors_have_lines(text, line):
    with pytest.raises(InputError) as info:
        read_text(text)
    assert info.value.line is not None and abs(info.value.line - line) <= 1


@pytest.mark.parametrize("data,needle", [(b"", "empty"), (b"\x00\x01\x02binary", "binary"), (b"\xff\xfe\xfa", "UTF-8")])
def test_bad_files(tmp_path, data, needle):
    p = tmp_path / "c.yaml"
    p.write_bytes(data)
    with pytest.raises(InputError, match=needle):
        read_path(p)


def test_huge_file_is_refused_without_reading(tmp_path):
    p = tmp_path / "big.yaml"
    with open(p, "wb") as fh:
        fh.truncate(50 * 1024 * 1024)
    with pytest.raises(InputError, match="MB"):
        read_path(p)


@pytest.mark.parametrize("fmt", ["yaml", "python", "hydra", "megatron_lm", "run_script"])
def test_render_roundtrip(fmt):
    values = {"model.cuda_graph_impl": "transformer_engine", "model.cuda_graph_scope": ["attn", "mlp"]}
    cfg = read_text(render(values, fmt), fmt=fmt)
    assert {k: cfg.get(k) for k in values} == values


@pytest.mark.parametrize("expansion,schedule", [('"${ARGS[@]}"', ["0:16 2.4B:320"]), ("${ARGS[@]}", None)])
def test_a_quoted_array_expansion_keeps_each_element_one_word(expansion, schedule):
    # bash: "${ARGS[@]}" passes the quoted element whole; unquoted ${ARGS[@]} splits it, and Megatron-LM
    # then refuses the extra words (as NVIDIA's core_v0.19.0 examples/gpt3/train_gpt3_175b_distributed.sh does)
    from skill_tools.config.read_flags import _expand_arrays

    text = ('ARGS=(\n  --micro-batch-size 1\n  --step-batch-size-schedule "0:16 2.4B:320"\n)\n'
            f"torchrun pretrain_gpt.py {expansion}\n")
    words = [w for w, _ in _expand_arrays(text, [("torchrun", 5), ("pretrain_gpt.py", 5), ("${ARGS[@]}", 5)])]
    at = words.index("--step-batch-size-schedule")
    if schedule:
        assert words[at + 1:] == schedule
    else:
        assert words[at + 1:] == ["0:16", "2.4B:320"]


def test_python_subscript_assignments_name_their_key():
    # Bridge reads dataset.dataset_kwargs["pad_to_max_length"] (training/config.py:1165 @ v0.6.0)
    text = ('cfg.dataset.dataset_kwargs["pad_to_max_length"] = True\n'
            'os.environ["NCCL_GRAPH_REGISTER"] = "0"\nd[k] = 3\ncfg.model.x[0] = 1\n')
    cfg = read_text(text, fmt="python")
    assert cfg.get("dataset.dataset_kwargs.pad_to_max_length") is True and cfg.env == {"NCCL_GRAPH_REGISTER": "0"}
    assert not any(k.startswith("model.x") for k in cfg.values)  # an index is not a key


def test_a_name_bound_to_a_section_reads_as_that_section():
    text = ("def enable(cfg):\n    m = cfg.model\n    m.cuda_graph_impl = 'full_iteration'\n    d = cfg.ddp\n"
            "    d.check_for_nan_in_grad = False\n    x = foo.bar\n    x.y = 1\n")
    assert read_text(text, fmt="python").values == {"model.cuda_graph_impl": "full_iteration",
                                                    "ddp.check_for_nan_in_grad": False}


def test_a_bare_override_lands_in_the_section_that_has_the_field():
    """``pad_to_max_length=true`` is a dataset field, ``te_rng_tracker`` an rng one; a model field or
    a name no single section has stays under model (data/config_keys.json, Bridge's ConfigContainer)."""
    from skill_tools.config.read_flags import home_section, read_hydra

    assert home_section("pad_to_max_length") == "dataset"
    assert home_section("te_rng_tracker") == "rng"
    assert home_section("cuda_graph_impl") == "model"
    assert home_section("no_such_field_anywhere") == "model"
    assert read_hydra("pad_to_max_length=true", "t").values == {"dataset.pad_to_max_length": True}
