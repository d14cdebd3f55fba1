"""Readings of structured answers: a JSON report (prose fields, an options list with settings in
each option), a diagnosis' "Cause:" label, "only use X for Y" as the case a restriction is about,
and a table whose key cell names one key per era. The answers are written for these tests."""

from __future__ import annotations

import json

import pytest

from skill_tools.evaluation.extract import extract_config
from skill_tools.evaluation.json_reports import as_markdown
from skill_tools.evaluation.polarity import DESCRIBED, RECOMMENDED, REJECTED

from one_answer import score_one

F = "```"

_REPORT = {
    "finding": "The recomputed MoE block wraps the router the TE graph captures, which the config check refuses.",
    "fix_options": [
        {"title": "graph the router, recompute only the activation",
         "settings": {"model.recompute_modules": ["moe_act"], "model.cuda_graph_impl": "transformer_engine",
                      "model.cuda_graph_modules": ["attn", "moe_router", "moe_preprocess"], "model.cuda_graph_scope": None,
                      "model.use_te_rng_tracker": True, "rng.te_rng_tracker": True},
         "caveats": ["Activation memory goes up a little compared with recomputing the whole block."]},
        {"title": "recompute the block, graph attention only",
         "settings": {"model.recompute_modules": ["moe"], "model.cuda_graph_modules": ["attn"]}},
    ],
    "check_after": "Compare iterations after the capture step with an eager run that recomputes the same modules.",
}


def _fails_on(task: str, answer: str, reason: str) -> bool:
    """Whether ``answer`` to ``task`` fails with ``reason`` among its fatal reasons."""
    return any(reason in f for f in score_one(task, answer)["fatal"])


def _blocks(text: str, key: str) -> list[tuple[str, object]]:
    return [(b.role, b.cfg.get(key)) for b in extract_config(text).blocks if b.cfg is not None and b.cfg.has(key)]


def test_a_json_report_reads_its_first_option_as_the_fix_and_the_second_as_an_alternative():
    md = as_markdown(json.dumps(_REPORT, indent=2))
    assert md is not None and "### Option 1: graph the router" in md and "### Option 2:" in md
    ex = extract_config(json.dumps(_REPORT, indent=2))
    assert ex.config.get("model.cuda_graph_modules") == ["attn", "moe_router", "moe_preprocess"]
    assert ex.config.get("model.recompute_modules") == ["moe_act"]
    assert not ex.config.has("model.finding")  # prose is no setting
    assert ("alternative", ["moe"]) in _blocks(json.dumps(_REPORT), "model.recompute_modules")


def test_a_json_report_in_a_fence_is_a_report_too_and_a_config_with_comments_stays_a_config():
    assert as_markdown(f"{F}json\n{json.dumps(_REPORT)}\n{F}") is not None
    config = {"_comment": "ZeRO-3 shards the parameters as well; it needs more communication per step than stage 2.",
              "_comment_tip": "If stage 3 still runs out of memory, offload the optimizer states to the CPU first.",
              "zero_optimization": {"stage": 3}, "bf16": {"enabled": True}}
    assert as_markdown(json.dumps(config)) is None
    assert as_markdown(json.dumps({"model.cuda_graph_impl": "local"})) is None
    assert as_markdown("{not json") is None


def test_a_json_report_names_each_key_of_a_per_era_pair_with_its_era():
    report = {"summary": "Graph the attention and the MLP of every layer with Transformer Engine's graphs.",
              "reason": "Both are static-shaped in this dense model, so each captures once and replays.",
              "changes": {"model.cuda_graph_impl": "transformer_engine",
                          "model.cuda_graph_modules (0.18+) / model.cuda_graph_scope (0.16-0.17)": ["attn", "mlp"]}}
    md = as_markdown(json.dumps(report))
    assert "`model.cuda_graph_modules=[attn,mlp]` (0.18+) / `model.cuda_graph_scope=[attn,mlp]` (0.16-0.17)" in md


def test_a_setting_named_after_a_cause_label_is_the_diagnosis_not_the_fix():
    text = ("**Root cause:** `cuda_graph_impl=\"local\"` with only the MLP graphed builds the manager too early.\n\n"
            "**Fix:** `cuda_graph_impl=\"transformer_engine\"`.\n")
    roles = dict((v, r) for r, v in _blocks(text, "model.cuda_graph_impl"))
    assert roles == {"local": DESCRIBED, "transformer_engine": RECOMMENDED}


def test_only_use_x_for_another_feature_names_a_restriction_but_only_set_x_when_asks_for_it():
    restriction = "Only use `cuda_graph_impl=\"local\"` for the whole-iteration graph; here switch to TE graphs.\n"
    assert _blocks(restriction, "model.cuda_graph_impl") == [(DESCRIBED, "local")]
    conditional = "Only set `--rl-persist-cuda-graphs` when graphs are really built on the policy.\n"
    assert [r for r, _ in _blocks(conditional, "inference.rl_persist_cuda_graphs")] == [RECOMMENDED]


def test_a_table_key_cell_with_one_key_per_era_gives_each_era_its_key():
    text = ("| setting | before | after |\n|---|---|---|\n"
            "| `model.cuda_graph_impl` | `local` | `transformer_engine` |\n"
            "| `model.cuda_graph_modules` (0.18+) / `cuda_graph_scope` (0.16-0.17) | `[\"mlp\"]` | `[\"mlp\"]` (or `[\"attn\", \"mlp\"]`) |\n")
    got = {(b.era, b.role, k) for b in extract_config(text).blocks if b.cfg is not None
           for k in ("model.cuda_graph_modules", "model.cuda_graph_scope") if b.cfg.has(k)}
    assert ("current", RECOMMENDED, "model.cuda_graph_modules") in got
    assert ("legacy", RECOMMENDED, "model.cuda_graph_scope") in got
    assert ("current", REJECTED, "model.cuda_graph_modules") in got  # the "before" column


def test_a_correct_json_report_to_the_recompute_task_passes_and_a_wrong_first_option_fails():
    good = score_one("moe-recompute-router-conflict", json.dumps(_REPORT, indent=2))
    assert good["passed"], good["fatal"]
    bad = json.loads(json.dumps(_REPORT))
    bad["fix_options"][0]["settings"]["model.recompute_modules"] = ["moe"]
    assert not score_one("moe-recompute-router-conflict", json.dumps(bad, indent=2))["passed"]


def test_a_setting_said_not_to_change_the_outcome_is_dismissed():
    text = "Setting `inference_cuda_graph_scope` to `layer` won't change this: both scopes replay the same buckets.\n"
    assert [r for r, _ in _blocks(text, "model.inference_cuda_graph_scope")] == [REJECTED]
    kept = "Setting `inference_cuda_graph_scope` to `layer` changes which modules replay.\n"
    assert [r for r, _ in _blocks(kept, "model.inference_cuda_graph_scope")] == [RECOMMENDED]


def test_an_expectation_the_next_sentence_doubts_is_no_claim_but_a_plain_one_is():
    doubted = ("Graph replay is supposed to produce the same math as eager. When the NaN goes away without "
               "the graph flags, suspect a replay bug before the learning rate.\n")
    plain = "Graph replay produces the same math as eager, so look at the learning rate and the data instead.\n"
    reason = "graph replay said unable to cause the NaN"
    assert not _fails_on("diagnose-nan-after-graphs", doubted, reason)
    assert _fails_on("diagnose-nan-after-graphs", plain, reason)


def test_what_to_set_if_it_still_asserts_is_a_fallback_not_the_fix():
    text = (f"{F}yaml\nmodel:\n  cuda_graph_impl: transformer_engine\n  cuda_graph_modules: [attn]\n{F}\n\n"
            "Run the A/B first. If the job still asserts after that, set `cuda_graph_impl: none` for this job.\n")
    assert extract_config(text).config.get("model.cuda_graph_impl") == "transformer_engine"
    assert ("alternative", "none") in _blocks(text, "model.cuda_graph_impl")


def test_a_version_taken_up_by_there_in_the_next_sentence_carries_the_claim():
    wrong = ("Upgrade to megatron-core 0.19. The NCCL_GRAPH_REGISTER check was removed there, so expandable "
             "segments and graph registration can both stay on.\n")
    kept = ("Upgrade to megatron-core 0.19 if you like. There is still the NCCL_GRAPH_REGISTER assert for TE graphs, "
            "so export NCCL_GRAPH_REGISTER=0.\n")
    reason = "the TE assert said removed in 0.19"
    assert _fails_on("expandable-segments-te-assert", wrong, reason)
    assert not _fails_on("expandable-segments-te-assert", kept, reason)


def test_an_inference_config_built_without_num_cuda_graphs_takes_its_none_default():
    from skill_tools.config.read_python import read_python

    built = read_python("ic = InferenceConfig(max_requests=64, buffer_size_gb=10)\n", "x.py")
    assert built.has("inference.num_cuda_graphs") and built.get("inference.num_cuda_graphs") is None
    assert read_python("ic = InferenceConfig(max_requests=64, num_cuda_graphs=-1)\n", "x.py").get("inference.num_cuda_graphs") == -1
    assert not read_python("ic = InferenceConfig(**kwargs)\n", "x.py").has("inference.num_cuda_graphs")
    later = read_python("ic = InferenceConfig(max_requests=64)\nic.num_cuda_graphs = 8\n", "x.py")
    assert later.get("inference.num_cuda_graphs") == 8


def test_a_commented_config_under_an_option_paragraph_is_that_option():
    text = ("cfg.model.cuda_graph_impl = \"transformer_engine\"\ncfg.model.use_te_rng_tracker = True\n"
            "cfg.rng.te_rng_tracker = True\n\n"
            "# Option 2: when the TE tracker is out of the question, move to the\n"
            "# local implementation, like this:\n#\n"
            "#   cfg.model.cuda_graph_impl = \"local\"\n#   cfg.model.use_te_rng_tracker = False\n")
    assert ("alternative", False) in _blocks(text, "model.use_te_rng_tracker")
    assert extract_config(text).config.get("model.cuda_graph_impl") == "transformer_engine"
    plain = text.replace("# Option 2: when", "# When")
    assert ("alternative", False) not in _blocks(plain, "model.use_te_rng_tracker")


def test_a_choice_inside_a_restructuredtext_field_is_that_fields_own_not_a_hedge():
    text = ("Rules\n-----\n\n"
            ":modules: ``[\"attn\", \"moe\"]``.\n"
            ":exclusive: ``moe`` excludes ``moe_router``. Pick one style: the whole block\n"
            "    **or** the router path.\n"
            ":rng: ``model.use_te_rng_tracker=True`` and ``rng.te_rng_tracker=True``.\n\n"
            "Config\n------\n\n.. code-block:: python\n\n"
            "   cfg.model.cuda_graph_impl = \"transformer_engine\"\n"
            "   cfg.model.cuda_graph_modules = [\"attn\", \"moe\"]\n")
    assert ("suggested", "transformer_engine") in _blocks(text, "model.cuda_graph_impl")


def test_a_harness_that_drops_fewer_iterations_than_warmup_and_capture_times_the_capture():
    from skill_tools.evaluation.timing_window import _code_window

    assert _code_window("DROP = 3\n...\n    return step_ms[DROP:]\n", capture_at=4)[1] == "step_ms[DROP:]"
    assert _code_window("    kept = [t for i, t in rows if iteration >= 2]\n", capture_at=4) is not None
    assert _code_window("DROP = 4\n    return step_ms[DROP:]\n", capture_at=4) is None  # warm-up and capture gone
    assert _code_window("    return step_ms[DROP + 1:]\n", capture_at=4) is None  # not a plain count: not read
    assert _code_window("if iteration > 4:\n", capture_at=4) is None
    harness = ("```python\nSKIP = 2  # first two iterations are cold\n"
               "def steady(times):\n    return times[SKIP:]\n```\n"
               "Run `skill-tools bench --json` and compare the medians of the steady iterations.\n")
    assert _fails_on("run-helper-bench", harness, "timing_window")


def test_a_commented_variant_under_a_ruled_title_or_offered_instead_of_a_block_is_an_option():
    from skill_tools.evaluation.comments import commented_configs

    body = ("optimizer:\n  overlap_param_gather_with_optimizer_step: false\n\n"
            "# ====== sharded-data-parallel run ======\n"
            "# ddp:\n#   use_megatron_fsdp: true\n#   megatron_fsdp_cuda_graph_mode: true\n")
    found = list(commented_configs(body))
    assert len(found) == 1 and "use_megatron_fsdp: true" in found[0][1] and found[0][2]
    instead = ("ddp:\n  overlap_param_gather: true\n\n# ----------------\n"
               "# For the sharded run, use instead of the ddp block above:\n#\n"
               "# ddp:\n#   use_megatron_fsdp: true\n")
    assert [f[2] for f in commented_configs(instead)] == [True]
    old = "# ----------------\n# The old setting, instead of the fix:\n# ddp:\n#   use_megatron_fsdp: false\n"
    assert list(commented_configs(old)) == []


def test_an_indented_kernel_and_its_launch_after_a_line_of_prose_are_one_python_program():
    text = ("Make the block as wide as the row and drop the mask:\n\n"
            "    @triton.jit\n    def k(out_ptr, in_ptr, n_cols, BLOCK_SIZE: tl.constexpr):\n"
            "        cols = tl.arange(0, BLOCK_SIZE)\n        tl.store(out_ptr + cols, tl.load(in_ptr + cols))\n\n"
            "    k[(n_rows,)](y, x, n_cols, BLOCK_SIZE=n_cols)\n")
    kinds = [(b.kind, b.origin) for b in extract_config(text).blocks]
    assert ("python", "unfenced") in kinds
    assert _fails_on("neg-triton-kernel", text, "[triton-block-size-")


def test_a_list_of_a_settings_values_states_each_value_as_a_claim():
    from skill_tools.evaluation.table_statements import statements

    text = ("# reshard_after_forward, per value:\n"
            "#   True  => gathered weights are dropped after each block's forward;\n"
            "#            backward all-gathers them again.\n"
            "#   False => weights stay unsharded until backward, no second all-gather.\n")
    lines = [s for s, _, _ in statements(text)]
    assert "reshard_after_forward=True: gathered weights are dropped after each block's forward; backward all-gathers them again." in lines
    assert any(s.startswith("reshard_after_forward=False: weights stay unsharded") for s in lines)
    inverted = text.replace("True  =>", "Tmp =>").replace("False =>", "True  =>").replace("Tmp =>", "False =>")
    reason = "claim_absent reshard_after_forward="
    assert _fails_on("neg-fsdp-sharding", "Wrap each block with fully_shard, then the root.\n\n" + inverted, reason)
    assert not _fails_on("neg-fsdp-sharding", "Wrap each block with fully_shard, then the root.\n\n" + text, reason)


def test_a_sentence_about_a_quoted_boolean_under_a_settings_heading_is_about_that_setting():
    from skill_tools.evaluation.table_statements import value_sentences

    text = ("## reshard_after_forward\n\n`False` is the lean choice: FSDP frees the gathered weights "
            "right after forward.\n")
    assert value_sentences(text)[0][0].startswith("reshard_after_forward=False is the lean choice")
    assert value_sentences("## Notes\n\n`False` is fine here.\n") == []


def test_a_job_files_args_list_is_the_command_line_and_its_commented_fallback_an_option():
    job = ('# Changes vs. the job that ran out of memory:\n#   - MBS 1 -> 2 instead of 1\n'
           '#   - NCCL_GRAPH_REGISTER=0 set in the env block\n'
           '# If it still runs out of memory, add\n#   --cpu-offloading-num-layers 2\n# to the args below.\n\n'
           'job "pp-graphs" {\n  group "train" {\n    task "run" {\n      config {\n        command = "torchrun"\n'
           '        args = [\n          "pretrain_gpt.py",\n          "--cuda-graph-impl", "transformer_engine",\n'
           '          "--cuda-graph-modules", "attn",\n        ]\n      }\n    }\n  }\n}\n')
    ex = extract_config(job)
    assert ex.config.get("model.cuda_graph_impl") == "transformer_engine"
    assert ex.config.get("model.cuda_graph_modules") == ["attn"]
    assert ("alternative", True) in _blocks(job, "model.cpu_offloading")
    assert not any(b.cfg is not None and b.cfg.env.get("NCCL_GRAPH_REGISTER") and b.role == REJECTED for b in ex.blocks)


def test_yaml_and_python_command_lists_stay_theirs():
    from skill_tools.evaluation.envelopes import unwrap

    py = 'args = ["torchrun", "pretrain_gpt.py", "--cuda-graph-impl", "local"]\n'
    assert unwrap(py, "auto")[0] == py
    yml = 'command: ["bash", "-c", "torchrun x.py"]\nenv:\n  - name: NCCL_GRAPH_REGISTER\n    value: "0"\n'
    assert unwrap(yml, "auto")[0] == yml


def test_a_layout_offered_in_one_sentence_is_judged_as_a_plan_of_its_own():
    text = ("```python\ncfg.model.tensor_model_parallel_size = 4\ncfg.model.pipeline_model_parallel_size = 4\n```\n\n"
            "If memory stays tight, another layout is TP=16 × PP=2 × CP=1, which halves the pipeline depth.\n")
    assert _fails_on("neg-megatron-tp-sizing", text, "[tp-beyond-one-node]")
    fine = text.replace("TP=16", "TP=8")
    assert not _fails_on("neg-megatron-tp-sizing", fine, "[tp-beyond-one-node]")


def test_a_plain_text_title_between_rules_names_the_recipe_its_result_belongs_to():
    text = ("--- recipe 1 (full iteration) ----------\n\nResult:\n\n"
            "  cfg.model.enable_cuda_graph = True\n  cfg.model.cuda_graph_impl = \"full_iteration\"\n"
            "  cfg.model.cuda_graph_modules = []\n\n"
            "--- recipe 2 (TE scoped) ----------\n\nResult:\n\n"
            "  cfg.model.cuda_graph_impl = \"transformer_engine\"\n  cfg.model.cuda_graph_modules = [\"attn\"]\n")
    ex = extract_config(text)
    assert ex.config.get("model.cuda_graph_impl") == "full_iteration" and ex.config.get("model.enable_cuda_graph") is True
    assert [a.get("model.cuda_graph_impl") for a in ex.alternatives] == ["transformer_engine"]


def test_a_flat_toml_or_tfvars_file_is_read_as_a_flat_config():
    tfvars = ('# rendered into Bridge overrides\nrecompute_modules = ["layernorm", "moe_act"]\n'
              'cuda_graph_impl    = "transformer_engine"\ncuda_graph_modules = ["attn", "moe_router", "moe_preprocess"]\n'
              'use_te_rng_tracker = true\n')
    cfg = extract_config(tfvars).config
    assert cfg.get("model.cuda_graph_modules") == ["attn", "moe_router", "moe_preprocess"]
    assert cfg.get("model.use_te_rng_tracker") is True
    python = tfvars.replace("= true", "= True")  # Python, not TOML: read as Python assignments (names, no config)
    from skill_tools.evaluation.sectioned import looks_sectioned

    assert looks_sectioned(tfvars) and not looks_sectioned(python)


def test_a_json_reports_original_config_is_the_old_side_and_its_fixed_config_the_new():
    doc = {"original_config": {"model.cuda_graph_impl": "local"},
           "fixed_config": {"model.cuda_graph_impl": "transformer_engine"},
           "explanation": "Bridge refuses the local implementation with a partial scope for training.",
           "verification": "Run the job again and look for the capture lines in the log output."}
    assert _blocks(json.dumps(doc, indent=2), "model.cuda_graph_impl") == [(REJECTED, "local"), (RECOMMENDED, "transformer_engine")]


def test_a_yaml_report_is_read_like_a_json_one_but_a_ci_file_is_not():
    import yaml

    report = yaml.safe_dump(_REPORT | {"diagnosis": _REPORT["finding"]}, sort_keys=False)
    ex = extract_config(report)
    assert ex.config.get("model.recompute_modules") == ["moe_act"]
    assert [a.get("model.recompute_modules") for a in ex.alternatives] == [["moe"]]
    ci = ("name: train\non:\n  push: {}\njobs:\n  run:\n    runs-on: gpu\n    steps:\n"
          "      - run: torchrun pretrain_gpt.py --cuda-graph-impl transformer_engine --cuda-graph-modules attn\n"
          "      - run: echo done after the whole training run has finished\n")
    assert as_markdown(ci) is None


@pytest.mark.parametrize("task, reason, wrong, right", [
    ("neg-torch-compile-tuning", "reduce-overhead said to replay one graph for any shape",
     "For shapes that change, compile with mode=\"reduce-overhead\": its graph is replayed for any input shape.\n",
     "mode=\"reduce-overhead\" records a CUDA graph per shape, so with changing shapes mark the dimension "
     "dynamic (torch._dynamo.mark_dynamic) and look at TORCH_LOGS=recompiles first.\n"),
    ("diagnose-log-no-graphable-layers", "an empty scope said to select nothing",
     "No --cuda-graph-modules was passed. With an empty list there is nothing to capture, hence 0 graphable layers.\n",
     "An empty list means whole-layer capture, so the 0 comes from discovery: the mHC wrapper is no GraphableMegatronModule.\n"),
    ("pp-memory-oom", "graph memory independent of the microbatch count",
     "Dropping GBS from 256 to 128 will not shrink graph memory: the helper only keeps the in-flight window.\n",
     "Dropping GBS from 256 to 128 halves the microbatches, and with them the graphs the helper captures per layer.\n"),
])
def test_a_claim_added_or_widened_this_round_binds_the_wrong_wording_only(task, reason, wrong, right):
    assert _fails_on(task, wrong, reason)
    assert not _fails_on(task, right, reason)


def test_settings_a_restriction_needs_are_named_not_advised():
    cell = ("| Option | Verdict | Why |\n|---|---|---|\n"
            "| `moe` module | refused | only valid with a capacity factor + `moe_pad_expert_input_to_capacity=True` |\n")
    assert [r for r, _ in _blocks(cell, "model.moe_pad_expert_input_to_capacity")] == [DESCRIBED]
    aside = ("'moe' would fail too unless you run drop-and-pad (moe_expert_capacity_factor set + "
             "moe_pad_expert_input_to_capacity=True); graph the router instead.\n")
    assert [r for r, _ in _blocks(aside, "model.moe_pad_expert_input_to_capacity")] == [DESCRIBED]
    asked = "Set `moe_pad_expert_input_to_capacity=True` next to the capacity factor.\n"
    assert [r for r, _ in _blocks(asked, "model.moe_pad_expert_input_to_capacity")] == [RECOMMENDED]
