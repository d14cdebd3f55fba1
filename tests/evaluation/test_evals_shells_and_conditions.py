"""Environment exported by other shells and cluster files (fish, csh, PowerShell, Lmod, SLURM, a
Dockerfile, Python's ``os.environ`` calls) counts like ``export``; what a named
recipe sets, the list an "unless …:" spells out and the old side of an arrow wrapped onto the next
line of a bullet are descriptions, not advice. Answers written for these tests."""

from __future__ import annotations

import re

import pytest
from one_answer import score_one

from skill_tools.evaluation.extract import extract_config
from skill_tools.evaluation.shells import posix_env

Q = ("Keep expandable segments; the assert names the missing companion: NCCL must not register the graph's "
     "buffers. TE graphs check it in every version.\n\n")


@pytest.mark.parametrize("line,want", [
    ("set -gx NCCL_GRAPH_REGISTER 0", "export NCCL_GRAPH_REGISTER=0"),
    ("set -x PYTORCH_CUDA_ALLOC_CONF \"expandable_segments:True\"  # keep", "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"),
    ("set --export NCCL_GRAPH_REGISTER 0", "export NCCL_GRAPH_REGISTER=0"),
    ("setenv NCCL_GRAPH_REGISTER 0", "export NCCL_GRAPH_REGISTER=0"),
    ("$env:NCCL_GRAPH_REGISTER = \"0\"", "export NCCL_GRAPH_REGISTER=0"),
    ("set -l recipe my_recipe", "set -l recipe my_recipe"),  # fish local, not exported
    ("set -g NCCL_GRAPH_REGISTER 0", "set -g NCCL_GRAPH_REGISTER 0"),  # global, not exported
    ("set -euo pipefail", "set -euo pipefail"),
    # Lmod (Lua) modulefiles, a Dockerfile's one-pair ENV, systemd units, SLURM's --export
    ('setenv("NCCL_GRAPH_REGISTER", "0")', "export NCCL_GRAPH_REGISTER=0"),
    ("pushenv('PYTORCH_CUDA_ALLOC_CONF', 'expandable_segments:True') -- allocator",
     "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"),
    ("ENV NCCL_GRAPH_REGISTER 0", "export NCCL_GRAPH_REGISTER=0"),
    ('Environment="NCCL_GRAPH_REGISTER=0" PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True',
     "export NCCL_GRAPH_REGISTER=0 PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"),
    ("#SBATCH --export=ALL,NCCL_GRAPH_REGISTER=0", "export NCCL_GRAPH_REGISTER=0"),
    ("#SBATCH --export=ALL", "#SBATCH --export=ALL"),  # passes the caller's environment: sets nothing
    ("srun --export=ALL,NCCL_GRAPH_REGISTER=0 python pretrain_gpt.py", "srun NCCL_GRAPH_REGISTER=0 python pretrain_gpt.py"),
    ('getenv("NCCL_GRAPH_REGISTER")', 'getenv("NCCL_GRAPH_REGISTER")'),
])
def test_other_shells_export_lines_read_as_posix(line, want):
    assert posix_env(line) == want


@pytest.mark.parametrize("env_lines", [
    "set -gx PYTORCH_CUDA_ALLOC_CONF expandable_segments:True\nset -gx NCCL_GRAPH_REGISTER 0\n",
    "setenv PYTORCH_CUDA_ALLOC_CONF expandable_segments:True\nsetenv NCCL_GRAPH_REGISTER 0\n",
    "```fish\nset -gx PYTORCH_CUDA_ALLOC_CONF expandable_segments:True\nset -gx NCCL_GRAPH_REGISTER 0\n```\n",
    '```lua\nsetenv("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True")\nsetenv("NCCL_GRAPH_REGISTER", "0")\n```\n',
    "```bash\n#SBATCH --export=ALL,PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n"
    "srun --export=ALL,NCCL_GRAPH_REGISTER=0 python pretrain_gpt.py\n```\n",
    "```python\nimport os\nos.environ.setdefault('PYTORCH_CUDA_ALLOC_CONF', 'expandable_segments:True')\n"
    "os.environ.update(NCCL_GRAPH_REGISTER='0')\n```\n",
])
def test_a_companion_exported_by_another_shell_counts(env_lines):
    row = score_one("expandable-segments-te-assert", Q + env_lines)
    assert row["passed"], row["fatal"]
    missing = score_one("expandable-segments-te-assert", Q + re.sub(r"NCCL_GRAPH_REGISTER(['\"]?)(,\s*|\s+|=)(['\"]?)0",
                                                                   r"NCCL_DEBUG\1\2\3WARN", env_lines))
    assert not missing["passed"]


@pytest.mark.parametrize("text", [
    'The 8-GPU H100 Qwen3-30B-A3B recipe sets `recompute_granularity="full"`, and per-layer graphs assert.',
    'Your recipe sets `cuda_graph_scope="full"`; clear it.',
    "The `moe` module is refused unless the MoE is drop-and-pad: `moe_expert_capacity_factor` set **and** "
    "`moe_pad_expert_input_to_capacity=True`.",
])
def test_descriptions_are_not_settings(text):
    assert extract_config(text).config.values == {}


@pytest.mark.parametrize("text,key,value", [
    ('Make the recipe use `cuda_graph_impl="transformer_engine"`.', "model.cuda_graph_impl", "transformer_engine"),
    ('In the recipe, set `cuda_graph_impl="local"`.', "model.cuda_graph_impl", "local"),
])
def test_advice_about_a_recipe_stays_advice(text, key, value):
    assert extract_config(text).config.get(key) == value


def test_an_unless_you_instruction_stays_one():
    assert extract_config("Capture fails unless you set: `NCCL_GRAPH_REGISTER=0`.").config.env == {"NCCL_GRAPH_REGISTER": "0"}


def test_the_old_side_of_an_arrow_wrapped_in_a_bullet_is_old():
    text = ("- If a launch script passes Megatron-LM flags: `--enable-cuda-graph --cuda-graph-scope full_iteration`\n"
            "  → `--cuda-graph-impl full_iteration`.\n")
    cfg = extract_config(text, era="current").config
    assert cfg.get("model.cuda_graph_impl") == "full_iteration"
    assert not cfg.has("model.cuda_graph_scope") and not cfg.has("model.enable_cuda_graph")


def test_a_value_the_question_states_in_words_is_a_restatement():
    # the question states cuda_graph_impl twice (none for training, local for generation): quoting the
    # training policy's `none` back is not advice, and is not charged with what it would break
    answer = ("Colocated generation never built CudaGraphManagers, so decode ran eager without an error. The same model "
              "serves training (`cuda_graph_impl: none`) and generation (`local` + `inference_cuda_graph_scope: block`). "
              "Upgrade NeMo-RL and look for '> built ... cuda graph(s)' in the generation log; set the persist flag "
              "only where graphs are built. With KV-cache offload, export NCCL_GRAPH_REGISTER=0.")
    row = score_one("rl-colocated-eager-decode", answer)
    assert row["passed"], row["fatal"]


NAN_CODE = ('```python\ncfg.model.cuda_graph_impl = "full_iteration"\ncfg.model.check_for_nan_in_loss = False\n'
            'cfg.ddp.check_for_nan_in_grad = False\n```\n')


def test_words_do_not_move_a_field_the_code_writes_in_another_section():
    # "turn the NaN checks off" summarises the code; it does not put the loss check where the code did not
    cfg = extract_config("Both NaN checks sync to host, so turn the NaN checks off.\n\n" + NAN_CODE).config
    assert cfg.get("model.check_for_nan_in_loss") is False and not cfg.has("rerun_state_machine.check_for_nan_in_loss")


def test_another_frontends_equivalent_is_a_description():
    text = "You lose the NaN stop. The Megatron-LM equivalent is `--no-check-for-nan-in-loss-and-grad`."
    assert extract_config(text).config.values == {}
    assert extract_config("Use `--no-check-for-nan-in-loss-and-grad`.").config.get("ddp.check_for_nan_in_grad") is False


@pytest.mark.parametrize("text", [
    "The old `local` + `--cuda-graph-scope full_iteration` form is only a deprecated alias on 0.19.",
    "`--cuda-graph-scope full_iteration` is just an old spelling on 0.19.",
])
def test_a_form_called_only_a_deprecated_alias_is_rejected(text):
    ex = extract_config(text)
    assert not ex.config.has("model.cuda_graph_scope") and ex.counter_config.has("model.cuda_graph_scope")
