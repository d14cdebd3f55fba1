"""Forms answers take that the readers must see through: commands inside the shell's grammar
(``if ! out=$(skill-tools validate …); then``), a launcher's environment kept in a constant dict and
handed to ``os.execvpe`` with computed arguments, named variants of dotted overrides
(``VARIANTS = {"a": {**COMMON, …}, "b": {…}}``), a settings table whose bold cell turns a switch off,
an answer that is one JSON args file, and "non-" prefixes that negate nothing. Answers written for
these tests, through the whole scorer."""


from __future__ import annotations

from one_answer import score_one

from skill_tools.config.read_python import read_python
from skill_tools.evaluation.shells import program

F = "```"


def test_the_program_of_a_command_inside_the_shell_grammar():
    assert program(["if", "!", "out=$(skill-tools", "validate", "x.yaml", "--json);", "then"]) == "skill-tools"
    assert program(["done", "<", "<(git", "diff", "--name-only"]) == "git"
    assert program(["CUDA_DEVICE_MAX_CONNECTIONS=1", "torchrun", "pretrain_gpt.py"]) == "torchrun"
    assert program(["time", "python", "train.py"]) == "python"


def test_a_pre_push_hook_reads_no_flags_from_its_validate_and_git_commands():
    answer = """#!/usr/bin/env bash
set -euo pipefail
while read -r cfg; do
  if ! out=$(skill-tools validate "$cfg" --mcore-version 0.19.2 --json); then
    echo "$out"
  fi
done < <(git diff --name-only '@{u}'..HEAD -- 'configs/*.yaml')
"""
    row = score_one("run-helper-validate", answer)
    assert not any(k.startswith("model.") for k in row["config"]["values"]), row["config"]


def test_a_constant_dict_of_library_variables_is_the_environment():
    cfg = read_python('REQUIRED_ENV = {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True", '
                      '"NCCL_GRAPH_REGISTER": "1"}\n', "<t>")
    assert cfg.env == {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True", "NCCL_GRAPH_REGISTER": "1"}
    other = read_python('LABELS = {"train": "a", "eval": "b"}\n', "<t>")
    assert other.env == {}


def test_a_launcher_that_execs_torchrun_with_computed_arguments_is_read_and_judged():
    answer = F + """python
import os
import sys

REQUIRED_ENV = {
    "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True",
    "NCCL_GRAPH_REGISTER": "1",
}


def main():
    env = dict(os.environ)
    env.update(REQUIRED_ENV)
    cmd = ["torchrun", "--nproc-per-node", env.get("NPROC", "8"), *sys.argv[1:]]
    os.execvpe(cmd[0], cmd, env)
""" + F + "\n"
    row = score_one("expandable-segments-te-assert", answer)
    assert not row["findings"], row["findings"]
    assert row["config"]["env"]["NCCL_GRAPH_REGISTER"] == "1"
    assert not row["passed"], (row["score"], row["fatal"])


def test_a_shell_command_string_in_a_launcher_is_still_refused():
    answer = F + """python
import subprocess
cmd = ["bash", "-c", "rm -rf /"]
subprocess.run(cmd)
""" + F + "\n"
    row = score_one("expandable-segments-te-assert", answer)
    assert any(f["kind"] == "security" for f in row["findings"]), row["findings"]


VARIANTS = F + """python
COMMON = {
    "model.cuda_graph_warmup_steps": 3,
    "model.use_te_rng_tracker": True,
    "rng.te_rng_tracker": True,
}

VARIANTS = {
    "selective_te": {
        **COMMON,
        "model.recompute_granularity": "selective",
        "model.recompute_modules": ["mlp"],
        "model.cuda_graph_impl": "transformer_engine",
        "model.cuda_graph_modules": ["attn"],
    },
    "full_iteration": {
        **COMMON,
        "model.recompute_granularity": "full",
        "model.recompute_method": "uniform",
        "model.recompute_num_layers": 1,
        "model.cuda_graph_impl": "full_iteration",
        "model.cuda_graph_modules": [],
        "rerun_state_machine.check_for_nan_in_loss": False,
        "ddp.check_for_nan_in_grad": False,
    },
}
""" + F + "\n"


def test_named_variants_are_the_recommendation_and_an_option():
    row = score_one("recompute-full-with-te", VARIANTS)
    values = row["config"]["values"]
    assert values["model.cuda_graph_impl"] == "transformer_engine", values
    assert values["model.recompute_granularity"] == "selective"
    assert "model.recompute_num_layers" not in values  # the other variant's, not laid over this one
    assert row["passed"], (row["score"], row["fatal"])


def test_a_variant_that_megatron_core_refuses_fails_the_answer():
    wrong = VARIANTS.replace('"model.recompute_modules": ["mlp"],',
                             '"model.recompute_method": "uniform",\n        "model.recompute_num_layers": 1,\n'
                             '        "model.recompute_modules": ["mlp"],')
    row = score_one("recompute-full-with-te", wrong)
    assert not row["passed"]
    assert "selective-recompute-num-layers" in str(row["fatal"]), row["fatal"]


def test_a_bold_off_in_a_settings_table_turns_the_switch_off():
    answer = """Settings, old and new:

| Setting | Old | New |
|---|---|---|
| `--rl-persist-cuda-graphs` | on (default) | **off** |
| `--rl-kv-cache-management-mode` | `persist` | **`offload`** |
"""
    row = score_one("rl-colocated-eager-decode", answer)
    values = row["config"]["values"]
    assert values.get("inference.rl_persist_cuda_graphs") is False, values
    assert values.get("inference.rl_kv_cache_management_mode") == "offload"
    assert not row["passed"], (row["score"], row["fatal"])


def test_an_answer_that_is_one_json_args_file_is_read_as_json():
    answer = """{
  "_comment": "Mixed precision: enable both.",
  "gradient_checkpointing": true,
  "bf16": true,
  "fp16": true,
  "per_device_train_batch_size": 2
}
"""
    row = score_one("neg-hf-gradient-checkpointing", answer)
    assert row["config"]["values"].get("model.bf16") is True, row["config"]
    assert not row["passed"]
    assert "hf-fp16-and-bf16" in str(row["fatal"])


def test_a_non_prefix_negates_nothing_in_a_claim():
    answer = """Keep block scope and compare against same-shape eager; the padded shapes differ.

- **What to ignore**
  - outputs that differ between two repeated runs of the same graphed variant: replay is as
    non-associative as eager bf16, so run-to-run wobble at near-ties is expected.
"""
    row = score_one("inference-parity-padded-shapes", answer)
    assert "a mismatch a real bug shows, dismissed as noise" in str(row["fatal"]), (row["score"], row["fatal"])


def test_a_field_passed_to_the_wrong_config_object_is_a_type_error():
    answer = F + """python
from megatron.core.inference.config import InferenceConfig

inference_config = InferenceConfig(
    max_requests=64,
    num_cuda_graphs=-1,
    use_cuda_graphs_for_non_decode_steps=False,
    inference_cuda_graph_scope="block",
)
model = build_model(cuda_graph_impl="local")
""" + F + "\n"
    row = score_one("inference-decode-graphs", answer)
    assert not row["passed"]
    assert "InferenceConfig has no field 'inference_cuda_graph_scope' (it is a TransformerConfig field)" in str(row["fatal"])


def test_constructor_fields_follow_the_era_and_skip_what_they_cannot_judge():
    from skill_tools.evaluation.constructors import fields, misfits
    from skill_tools.evaluation.fragments import Block

    assert "cuda_graph_modules" in fields("TransformerConfig", "current")
    assert "cuda_graph_modules" not in fields("TransformerConfig", "legacy")
    assert "tensor_model_parallel_size" in fields("TransformerConfig", None)  # from its base, ModelParallelConfig
    code = ("cfg = TransformerConfig(num_layers=2, cuda_graph_modules=['attn'], **extra)\n"
            "other = MyConfig(whatever=1)\n")
    block = Block("python", code, 1)
    assert [m.keyword for m in misfits([block], "legacy")] == ["cuda_graph_modules"]
    assert misfits([block], "current") == []


def test_an_era_named_after_an_item_tags_that_item_not_the_next_one():
    from skill_tools.evaluation.polarity import LinePolarity

    line = ("Keep the rest (`model.cuda_graph_impl=full_iteration` on 0.18+, or `local` + `cuda_graph_scope=[full_iteration]` "
            "on 0.16/0.17, `rerun_state_machine.check_for_nan_in_loss=false`).")
    pol = LinePolarity(line)
    at = line.index("`rerun_state_machine")
    assert pol.at(at, at + 40).era is None
    at = line.index("`cuda_graph_scope")
    assert pol.at(at, at + 20).era == "legacy"


def test_a_launch_command_that_turns_graphs_on_without_their_companion_fails():
    answer = """The drift is capturable Adam, not the replay. Control and candidate, same seed:

```bash
# control: eager, capturable Adam
torchrun --nproc-per-node 8 pretrain_gpt.py --seed 1234 --bf16 --optimizer adam --te-rng-tracker
# candidate: full-iteration graph + optimizer graph
torchrun --nproc-per-node 8 pretrain_gpt.py --seed 1234 --bf16 --optimizer adam \\
    --cuda-graph-impl full_iteration --optimizer-cuda-graph --te-rng-tracker
```

Compare the candidate against eager with the same capturable Adam; a difference there is a replay bug.
"""
    row = score_one("optimizer-graph-loss-drift", answer)
    assert "nan-check-full-iteration" in str(row["fatal"]), (row["score"], row["fatal"])
    fixed = score_one("optimizer-graph-loss-drift", answer.replace("--optimizer-cuda-graph",
                                                                   "--optimizer-cuda-graph --no-check-for-nan-in-loss-and-grad"))
    assert "nan-check-full-iteration" not in str(fixed["fatal"]), fixed["fatal"]


def test_hydra_override_lines_with_trailing_comments_are_not_python():
    answer = """# Packed SFT + TE attn graphs: Bridge overrides
dataset.pad_to_max_length=True          # every pack has exactly seq_length tokens
model.cuda_graph_impl=transformer_engine
model.cuda_graph_modules=[attn]         # on 0.16/0.17 stacks: model.cuda_graph_scope=[attn]
model.use_te_rng_tracker=True
rng.te_rng_tracker=True
"""
    values = score_one("packed-sequences-sft", answer)["config"]["values"]
    assert values["model.cuda_graph_impl"] == "transformer_engine", values
    assert values["model.cuda_graph_modules"] == ["attn"]


def test_the_if_branch_of_a_graphs_toggle_is_the_config():
    code = ('if graphs:\n    cfg.model.cuda_graph_impl = "transformer_engine"\n    cfg.model.cuda_graph_modules = ["attn"]\n'
            'else:\n    cfg.model.cuda_graph_impl = "none"\n')
    cfg = read_python(code, "<t>")
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine"
    assert cfg.get("model.cuda_graph_modules") == ["attn"]


def test_an_option_offered_for_drop_and_pad_is_judged_on_drop_and_pad():
    answer = """Fixed config for your dropless MoE (megatron-core 0.19.2):

```yaml
model:
  cuda_graph_impl: transformer_engine
  cuda_graph_scope: null
  cuda_graph_modules: [moe_router, moe_preprocess]
  use_te_rng_tracker: true
rng:
  te_rng_tracker: true
```

| # | finding | fix |
|---|---|---|
| 1 | `moe` + `moe_router` | dropless: `moe_router` + `moe_preprocess`; `moe` alone only if you run drop-and-pad (`moe_expert_capacity_factor` set + `moe_pad_expert_input_to_capacity: true`) |

Drop-and-pad variant instead: `cuda_graph_modules: [moe]` (never together with `moe_router`).
"""
    row = score_one("run-helper-validate", answer)
    assert "model.moe_pad_expert_input_to_capacity" not in row["config"]["values"], row["config"]
    assert not any("moe-scope-needs-drop-pad" in f for f in row["fatal"]), row["fatal"]
    dropless = score_one("run-helper-validate", answer.replace("Drop-and-pad variant instead", "Also try"))
    assert any("moe-scope-needs-drop-pad" in f for f in dropless["fatal"]), dropless["fatal"]


def test_a_block_that_shows_its_own_type_error_reproduces_the_error():
    from skill_tools.evaluation.constructors import misfits
    from skill_tools.evaluation.fragments import Block

    code = ("TransformerConfig(num_layers=2, cuda_graph_impl='full_iteration', cuda_graph_modules=[])\n"
            "# TypeError: __init__() got an unexpected keyword argument 'cuda_graph_modules'\n")
    assert misfits([Block("python", code, 1)], "legacy") == []


def test_variants_written_as_dict_calls_with_the_eager_reference_first():
    from skill_tools.evaluation.extract import extract_config

    text = ("```python\nVARIANTS = {\n    \"eager\": dict(cuda_graph_impl=\"none\", inference_cuda_graph_scope=\"none\"),\n"
            "    \"local_block\": dict(cuda_graph_impl=\"local\", inference_cuda_graph_scope=\"block\"),\n"
            "    \"te_block\": dict(cuda_graph_impl=\"transformer_engine\", inference_cuda_graph_scope=\"block\"),\n}\n"
            "for name, overrides in VARIANTS.items():\n    run(name, **overrides)\n```\n")
    ex = extract_config(text)
    assert ex.config.get("model.cuda_graph_impl") == "local"  # the first run with graphs on; eager is the reference
    assert ex.config.get("model.inference_cuda_graph_scope") == "block"
    assert [a.get("model.cuda_graph_impl") for a in ex.alternatives] == ["transformer_engine"]
    # keywords that are not config fields are not a variant
    assert extract_config("```python\nV = {\"a\": dict(prompt=\"x\", n=3), \"b\": dict(prompt=\"y\", n=4)}\n```\n").alternatives == []
