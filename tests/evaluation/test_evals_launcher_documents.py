"""Launcher documents whose top is a list (Ansible tasks, Compose/CI step lists): the config
readers take mappings only, so the scorer reads their environment maps and command lines."""

from __future__ import annotations

from one_answer import checks_of, score_one

from skill_tools.evaluation.extract import extract_config

ANSIBLE = '''\
- name: Launch training
  ansible.builtin.command:
    argv: [sbatch, train.sbatch]
  environment:
    PYTORCH_CUDA_ALLOC_CONF: "expandable_segments:True"
    NCCL_GRAPH_REGISTER: "0"
'''


def test_ansible_environment_map_is_read():
    cfg = extract_config(ANSIBLE).select("current").config
    assert cfg.env["NCCL_GRAPH_REGISTER"] == "0"
    assert cfg.env["PYTORCH_CUDA_ALLOC_CONF"] == "expandable_segments:True"


def test_compose_style_environment_list_is_read():
    text = "```yaml\n- name: train\n  environment:\n    - NCCL_GRAPH_REGISTER=0\n    - FOO_BAR=1\n```\n"
    assert extract_config(text).select("current").config.env == {"NCCL_GRAPH_REGISTER": "0", "FOO_BAR": "1"}


def test_step_list_command_line_is_read_as_flags():
    text = ("```yaml\n- name: train\n  args: [--cuda-graph-impl, transformer_engine, --cuda-graph-modules, attn]\n"
            "  env:\n    CUDA_DEVICE_MAX_CONNECTIONS: 1\n```\n")
    cfg = extract_config(text).select("current").config
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine"
    assert cfg.env["CUDA_DEVICE_MAX_CONNECTIONS"] == "1"


def test_a_list_without_launcher_parts_stays_a_parse_finding():
    ext = extract_config("```yaml\n- just\n- words\n```\n")
    assert any(f.kind == "parse" and "got a list" in f.message for f in ext.findings)


def test_the_required_env_companion_in_an_ansible_answer_passes():
    row = score_one("expandable-segments-te-assert", "Keep expandable segments; add the NCCL setting.\n\n```yaml\n"
                    + ANSIBLE + "```\n")
    env = [c for c in checks_of(row, "env") if "NCCL_GRAPH_REGISTER" in c["explanation"]]
    assert env and env[0]["passed"], env


def test_a_compose_file_whose_command_is_a_block_scalar_is_read_whole():
    """The flags sit in ``command: >`` lines that are not ``key: value`` lines: the document is still
    YAML, so its ``environment:`` map is read with them (04c r216)."""
    from skill_tools.evaluation.extract import extract_config

    text = ("services:\n  trainer:\n    image: nvcr.io/nvidia/nemo:25.11\n    environment:\n"
            "      PYTORCH_CUDA_ALLOC_CONF: \"expandable_segments:True\"\n    command: >\n"
            "      torchrun --nproc-per-node 8 pretrain_gpt.py\n      --cuda-graph-impl transformer_engine\n"
            "      --cuda-graph-modules attn\n")
    cfg = extract_config(text).config
    assert cfg.env.get("PYTORCH_CUDA_ALLOC_CONF") == "expandable_segments:True"
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine"


def test_a_functional_test_args_file_is_still_read_as_flags():
    from skill_tools.evaluation.extract import extract_config

    text = "MODEL_ARGS:\n  --cuda-graph-impl: local\n  --cuda-graph-scope: full_iteration_inference\n  --bf16: true\n"
    assert extract_config(text).config.get("model.cuda_graph_impl") == "local"
