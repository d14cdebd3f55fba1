"""Forms pasted without a fence: a unified diff (with git format-patch's signature), a hashtable
of quoted dotted overrides (PowerShell, Perl, Lua), a JSON5 document; and prose that mentions a
line of the other era's spelling only to remove it, in any language."""

from __future__ import annotations

import pytest

from skill_tools.evaluation.extract import extract_config

DIFF = """Patch:

diff --git a/recipes/a.py b/recipes/a.py
--- a/recipes/a.py
+++ b/recipes/a.py
@@ -40,4 +40,5 @@ def cfg_fn():
     cfg = base()
-    cfg.model.enable_cuda_graph = True
-    cfg.model.cuda_graph_scope = ["full_iteration"]
+    cfg.model.cuda_graph_impl = "full_iteration"
+    cfg.model.cuda_graph_modules = []
     return cfg
-- 
2.47.1

Make sure no base recipe still sets `enable_cuda_graph=True`.
"""


def test_an_unfenced_diff_reads_its_new_side_and_rejects_its_old():
    ex = extract_config(DIFF, era="current")
    assert ex.config.get("model.cuda_graph_impl") == "full_iteration" and ex.config.get("model.cuda_graph_modules") == []
    assert not ex.config.has("model.enable_cuda_graph")
    assert ex.counter_config.get("model.enable_cuda_graph") is True


@pytest.mark.parametrize("table", [
    "$Graph = [ordered]@{\n    'model.cuda_graph_impl' = 'full_iteration'\n    'model.cuda_graph_modules' = '[]'\n}",
    "my %graph = (\n    'model.cuda_graph_impl' => 'full_iteration',\n    'model.cuda_graph_modules' => '[]',\n);",
    "local graph = {\n  [\"model.cuda_graph_impl\"] = \"full_iteration\",\n  [\"model.cuda_graph_modules\"] = \"[]\",\n}",
], ids=["powershell", "perl", "lua"])
def test_a_hashtable_of_quoted_dotted_overrides_is_read(table):
    cfg = extract_config(f"Overrides:\n\n{table}\n\nThen launch.\n").config
    assert cfg.get("model.cuda_graph_impl") == "full_iteration" and cfg.get("model.cuda_graph_modules") == []


def test_a_json5_document_is_read_whole():
    text = ("// overrides.json5\n{\n  model: {\n    cuda_graph_impl: \"transformer_engine\",\n"
            "    cuda_graph_scope: [\"full_iteration\"],  // the scope list\n  },\n  rng: { te_rng_tracker: true, },\n}\n")
    cfg = extract_config(text, era="legacy").config
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine"
    assert cfg.get("model.cuda_graph_scope") == ["full_iteration"]


def test_the_other_eras_line_named_to_remove_it_is_not_advice():
    # Kazakh: "Remove the `cfg.model.cuda_graph_modules = []` line entirely." (the verb comes last)
    text = ("0.17:\n\n```python\ncfg.model.cuda_graph_impl = \"local\"\ncfg.model.cuda_graph_scope = [\"full_iteration\"]\n```\n\n"
            "`cfg.model.cuda_graph_modules = []` жолын мүлдем алып тастаңыз.\n")
    cfg = extract_config(text, era="legacy").config
    assert not cfg.has("model.cuda_graph_modules") and cfg.get("model.cuda_graph_scope") == ["full_iteration"]


def test_would_not_do_lists_reject_what_they_name():
    text = ("Keep `cuda_graph_impl=\"transformer_engine\"`.\n\nTwo things I would not do: disable the NaN check to get "
            "past iteration 90, or turn off the grad NaN check.\n")
    cfg = extract_config(text).config
    assert not cfg.has("rerun_state_machine.check_for_nan_in_loss") and not cfg.has("ddp.check_for_nan_in_grad")


def test_a_conda_environment_file_gives_the_process_environment():
    text = ("# environment.yml\nname: perf\nchannels:\n  - conda-forge\nvariables:\n"
            "  PYTORCH_CUDA_ALLOC_CONF: \"expandable_segments:True\"\n  NCCL_GRAPH_REGISTER: \"0\"\n")
    env = extract_config(text).config.env
    assert env.get("NCCL_GRAPH_REGISTER") == "0" and env.get("PYTORCH_CUDA_ALLOC_CONF") == "expandable_segments:True"


def test_a_spec_object_assigned_to_a_section_key_sets_its_fields():
    from skill_tools.config.read_python import read_python

    cfg = read_python("cfg.dataset.offline_packing_specs = PackedSequenceSpecs(packed_sequence_size=4096, "
                      "pad_cu_seqlens=True)\ncfg.model = GPTModelProvider(cuda_graph_impl=\"local\")\n", "t.py").values
    assert cfg["dataset.offline_packing_specs.pad_cu_seqlens"] is True
    assert cfg["model.cuda_graph_impl"] == "local" and not any(k.startswith("model.model") for k in cfg)


def test_a_suggestion_quoted_to_answer_it_is_not_the_answers_advice():
    from pathlib import Path

    from skill_tools.evaluation.score import score_all
    from skill_tools.evaluation.tasks import AnswerRecord, load_tasks

    tasks = load_tasks(Path(__file__).resolve().parents[2] / "evals" / "evals.json")
    answer = ("No, don't patch TE. Replies inline:\n\n> TE's tracker just needs to be made graph-safe. Monkeypatch it "
              "before model build.\n\nThat attribute isn't read by Megatron. Set both keys instead:\n\n"
              "```python\ncfg.model.use_te_rng_tracker = True\ncfg.rng.te_rng_tracker = True\n```\n")
    rec = AnswerRecord(id="rng-tracker-assert", condition="with_skill", answer=answer, line=1, agent="t")
    checks = [c for b in score_all(tasks, [rec])["answers"][0]["behaviors"] for c in b["checks"]
              if c["type"] == "concept_absent"]
    assert checks and all(c["score"] == 1.0 for c in checks), checks


def test_torchruns_own_options_are_not_a_config():
    text = "```bash\nDISTRIBUTED_ARGS=(\n    --nproc_per_node 8\n    --nnodes 1\n    --master_addr localhost\n)\n```\n"
    ex = extract_config(text)
    assert ex.config.values == {} and not any(b.kind == "run_script" for b in ex.blocks)


def _score(task: str, answer: str) -> dict:
    from pathlib import Path

    from skill_tools.cli import refusal
    from skill_tools.evaluation.score import score_all
    from skill_tools.evaluation.tasks import AnswerRecord, load_tasks

    tasks = load_tasks(Path(__file__).resolve().parents[2] / "evals" / "evals.json")
    record = AnswerRecord(id=task, condition="with_skill", answer=answer, line=1, agent="t")
    return score_all(tasks, [record], refusal=refusal)["answers"][0]


def test_a_pasted_back_script_drops_what_it_leaves_out():
    from pathlib import Path

    shipped = (Path(__file__).resolve().parents[2] / "evals" / "workspaces" / "workspace-mlm-full-iteration" /
               "train_gpt3_175b_distributed.sh").read_text()
    assert "--fp16" in shipped
    edited = shipped.replace("--fp16", "--bf16").replace("TRAINING_ARGS=(", "TRAINING_ARGS=(\n    --cuda-graph-impl full_iteration\n    --te-rng-tracker", 1)
    a = _score("workspace-mlm-full-iteration", f"Updated script:\n\n```bash\n{edited}\n```\n")
    # with --fp16 gone, nothing turns the NaN check off: full_iteration asserts on it
    assert not a["passed"] and any("nan" in f.lower() for f in a["fatal"]), a["fatal"]


def test_marathi_instead_of_rejects_what_it_follows():
    cfg = extract_config("2. `--fp16` ऐवजी `--bf16`: H100 वर bf16 सामान्य आहे.\n").config
    assert cfg.get("model.bf16") is True and not cfg.has("model.fp16")


def test_a_python_file_answer_is_read_whole_by_the_domain_rules():
    answer = ('"""Tuning torch.compile."""\nimport torch\n\n\ndef build(model):\n    # log recompiles first\n\n'
              '    return torch.compile(\n        model,\n        dynamic=False,\n    )\n')
    a = _score("neg-torch-compile-tuning", answer)
    assert any("compile-dynamic-false-for-recompiles" in f for f in a["fatal"]), a["fatal"]


def test_a_case_ending_glued_to_a_value_is_not_part_of_it():
    # Tamil: "keep gradient_accumulation_fusion=True" with the accusative ending on the value
    cfg = extract_config("gradient_accumulation_fusion=True-ஐ வைத்திருங்கள்.\n").config
    assert cfg.get("model.gradient_accumulation_fusion") is True


def test_no_before_a_list_of_flags_rejects_each():
    text = ("Flags: `--cuda-graph-impl transformer_engine --delay-wgrad-compute`, and no "
            "`--no-gradient-accumulation-fusion`, `--add-bias-linear` or `--add-qkv-bias` on the line.\n")
    cfg = extract_config(text).config
    assert not cfg.has("model.add_bias_linear") and not cfg.has("model.add_qkv_bias")
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine"


def test_a_claim_hard_wrapped_over_two_lines_is_one_clause():
    answer = ("Snippet:\n\n```python\ncfg.model.cuda_graph_modules = [\"moe\"]\n```\n\nThe capacity factor is what the "
              "check needs; `moe_pad_expert_input_to_capacity` only pads the experts and is a\n"
              "throughput knob, so leave it off.\n")
    a = _score("moe-drop-pad-moe-scope", answer)
    (claim,) = [c for b in a["behaviors"] for c in b["checks"] if c["type"] == "claim_absent"]
    assert claim["score"] == 0.0, claim
    listed = ("Pad to capacity:\n- `moe_pad_expert_input_to_capacity=True` keeps every expert at capacity\n"
              "- throughput knob: `moe_expert_capacity_factor=1.0`\n")
    (claim,) = [c for b in _score("moe-drop-pad-moe-scope", listed)["behaviors"] for c in b["checks"]
                if c["type"] == "claim_absent"]
    assert claim["score"] != 0.0, claim  # a list item is its own clause


def test_an_environment_the_answer_sets_without_its_companion_fails():
    arm = ("Graph arm of the A/B:\n\n```bash\nexport PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n"
           "python run.py model.cuda_graph_impl=transformer_engine model.cuda_graph_modules=[attn] "
           "model.use_te_rng_tracker=true rng.te_rng_tracker=true\n```\n\nCompare steady-state iterations after capture.\n")
    (check,) = [c for b in _score("no-speedup-after-capture", arm)["behaviors"] for c in b["checks"]
                if c["type"] == "written_settings"]
    assert check["score"] == 0.0 and "expandable-segments-nccl-register" in check["explanation"], check
    fixed = arm.replace("expandable_segments:True\n", "expandable_segments:True\nexport NCCL_GRAPH_REGISTER=0\n")
    (check,) = [c for b in _score("no-speedup-after-capture", fixed)["behaviors"] for c in b["checks"]
                if c["type"] == "written_settings"]
    assert check["score"] == 1.0, check


def test_the_old_spelling_joined_by_a_plus_is_rejected_whole():
    text = ("- `--cuda-graph-impl full_iteration`: the 0.18+ way; the old `local` + `--cuda-graph-scope full_iteration` "
            "spelling is only kept for migration.\n")
    cfg = extract_config(text, era="current").config
    assert cfg.get("model.cuda_graph_impl") == "full_iteration" and not cfg.has("model.cuda_graph_scope")


def test_a_table_introduced_as_what_does_not_work_lists_counterexamples():
    text = ("```python\ncfg.model.cuda_graph_impl = \"local\"\ncfg.model.cuda_graph_scope = [\"full_iteration\"]\n```\n\n"
            "What does *not* work on 0.16.1, in case you've seen it in newer docs:\n\n"
            "| You may have seen | On 0.16.1 |\n|---|---|\n| `cuda_graph_modules = []` | key doesn't exist before 0.18 |\n")
    cfg = extract_config(text, era="legacy").config
    assert not cfg.has("model.cuda_graph_modules") and cfg.get("model.cuda_graph_scope") == ["full_iteration"]


def test_a_commands_aligned_result_column_is_not_an_argument():
    from skill_tools.evaluation.tool_commands import _argv

    assert _argv("[ 90%] skill-tools validate --json train.sh    0 errors") == ["validate", "--json", "train.sh"]


def test_a_key_with_an_arrow_from_old_to_new_asks_for_the_new_value():
    text = ("**Change**\n- `cuda_graph_impl`: `\"none\"` → `\"transformer_engine\"`\n\n**Add**\n\n```python\n"
            "cfg.model.cuda_graph_modules = [\"attn\"]\n```\n")
    cfg = extract_config(text, era="current").config
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine" and cfg.get("model.cuda_graph_modules") == ["attn"]


def test_the_era_of_the_written_config_outranks_a_sentences():
    text = ("Use `cuda_graph_impl=\"transformer_engine\"`:\n\n```python\n# megatron-core 0.16 / 0.17\n"
            "cfg.model.cuda_graph_impl = \"transformer_engine\"\ncfg.model.cuda_graph_scope = [\"attn\"]\n```\n\n"
            "(On 0.18+ the same list goes in `cuda_graph_modules`, with `cuda_graph_scope = None`.)\n")
    ex = extract_config(text)
    assert ex.era == "legacy" and ex.config.get("model.cuda_graph_scope") == ["attn"]


def test_a_negation_after_the_bound_object_does_not_void_the_claim():
    answer = ("- full attention layers → `attn`\n- Gated DeltaNet layers → `mamba` — GDN is a linear-recurrent mixer, "
              "so it is graphed by the SSM scope, not by the attention scope\n")
    (claim,) = [c for b in _score("gdn-mamba-scope", answer)["behaviors"] for c in b["checks"]
                if c["type"] == "claim_absent" and c["name"] == "GDN under mamba"]
    assert claim["score"] == 0.0, claim
    fine = "- Gated DeltaNet layers → `attn`, not `mamba`: GDN is the self_attention of a TransformerLayer\n"
    (claim,) = [c for b in _score("gdn-mamba-scope", fine)["behaviors"] for c in b["checks"]
                if c["type"] == "claim_absent" and c["name"] == "GDN under mamba"]
    assert claim["score"] != 0.0, claim


def test_a_pre_commit_hooks_entry_is_a_command():
    a = _score("run-helper-validate", "```yaml\nrepos:\n  - repo: local\n    hooks:\n      - id: v\n"
                                      "        entry: skill-tools validate --json --era 0.19\n        language: system\n```\n")
    (check,) = [c for b in a["behaviors"] for c in b["checks"] if c["type"] == "tool_commands"]
    assert check["score"] == 0.0 and "--era" in check["explanation"], check


def test_json_with_comments_is_read_as_json():
    text = ('{\n  // .vscode/launch.json\n  "configurations": [\n    {\n      "module": "torch.distributed.run",\n'
            '      "env": {\n        "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True", // keep\n'
            '        "NCCL_GRAPH_REGISTER": "0",\n      },\n    }\n  ]\n}\n')
    env = extract_config(text).config.env
    assert env.get("NCCL_GRAPH_REGISTER") == "0" and env.get("PYTORCH_CUDA_ALLOC_CONF") == "expandable_segments:True"


def test_a_graphs_off_baseline_to_compare_against_is_no_refused_option():
    answer = ("The dynamic engine uses MCore's local graphs:\n\n```python\nconfig = TransformerConfig(\n"
              "    cuda_graph_impl=\"local\",\n    inference_cuda_graph_scope=\"block\",\n)\n```\n\n"
              "A/B decode tokens/s against `cuda_graph_impl=\"none\"` at your real batch size.\n")
    a = _score("inference-decode-graphs", answer)
    assert not any("inference-scope-impl" in f for f in a["fatal"]), a["fatal"]


def test_a_struck_through_item_is_rejected():
    text = ("Keep `cuda_graph_impl=\"transformer_engine\"`.\n\n- ~~Switch to `cuda_graph_impl=\"local\"` to get around "
            "the assert.~~ Bridge only takes `local` for full iteration.\n")
    ex = extract_config(text)
    assert ex.config.get("model.cuda_graph_impl") == "transformer_engine"
    assert ex.counter_config.get("model.cuda_graph_impl") == "local"
