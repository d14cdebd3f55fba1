"""Readings of what an answer keeps or only names: keyword arguments copied out of a call
(``cuda_graph_impl="local",``), a line commented as unchanged, a setting inside the condition of an
if-clause about the user's setup, and a timing sentence that says which iterations are warm-up. The
answers are written for these tests, in styles of their own."""

from __future__ import annotations

import ast

from skill_tools.config import pysource
from skill_tools.evaluation.answer_context import AnswerContext
from skill_tools.evaluation.extract import extract_config
from skill_tools.evaluation.restated_blocks import kept_keys
from skill_tools.evaluation.timing_window import find_window

from one_answer import checks_of, score_one

F = "```"


def _roles(text: str, key: str) -> list[str]:
    return [b.role for b in extract_config(text).blocks if b.cfg is not None and b.cfg.has(key)]


def _fails_on(task: str, answer: str, reason: str) -> bool:
    """Whether ``answer`` to ``task`` fails with ``reason`` among its fatal reasons."""
    return any(reason in f for f in score_one(task, answer)["fatal"])


def test_keyword_arguments_copied_out_of_a_call_are_values_not_tuples():
    text = ("The provider on 0.17 takes:\n\n"
            "    cuda_graph_impl=\"local\",\n"
            "    cuda_graph_scope=[\"full_iteration_inference\"],\n"
            "    # no inference_cuda_graph_scope on 0.17\n")
    cfg = extract_config(text).config
    assert cfg.get("model.cuda_graph_impl") == "local"
    assert cfg.get("model.cuda_graph_scope") == ["full_iteration_inference"]


def test_only_an_unbracketed_tuple_of_one_is_read_as_its_value():
    def value(src: str) -> ast.AST:
        return pysource.parse(src).body[0].value  # type: ignore[attr-defined]

    assert pysource.bare_one_tuple(value('x = "local",'))
    assert not pysource.bare_one_tuple(value('x = ("local",)'))
    assert not pysource.bare_one_tuple(value('x = "a", "b"'))
    assert not pysource.bare_one_tuple(value('x = "local"'))


def test_a_line_commented_as_unchanged_restates_the_users_setting():
    text = (f"{F}python\ncfg.optimizer.overlap_param_gather_with_optimizer_step = False\n"
            "cfg.model.cuda_graph_impl = \"full_iteration\"   # unchanged\n"
            f"cfg.ddp.overlap_param_gather = True\n{F}\n")
    assert kept_keys(extract_config(text)) == frozenset({"model.cuda_graph_impl"})
    plain = text.replace("   # unchanged", "   # graph the whole step")
    assert kept_keys(extract_config(plain)) == frozenset()


def test_a_full_iteration_graph_kept_as_the_user_has_it_asks_for_no_companion():
    answer = ("The all-gather is dispatched by the previous optimizer step, outside the captured "
              "iteration, and waited on inside it.\n\n"
              f"{F}python\ncfg.optimizer.overlap_param_gather_with_optimizer_step = False\n"
              "cfg.comm_overlap.overlap_param_gather_with_optimizer_step = False\n"
              f"cfg.model.cuda_graph_impl = \"full_iteration\"  # already set, as before\n{F}\n\n"
              "For Megatron-FSDP: `ddp.megatron_fsdp_cuda_graph_mode=True` and "
              "`ddp.fsdp_all_gather_in_start_param_sync=False`.\n")
    row = score_one("diagnose-stream-capture-isolation", answer)
    assert row["passed"] and not row["fatal"], row["fatal"]
    written = answer.replace("  # already set, as before", "")
    assert _fails_on("diagnose-stream-capture-isolation", written, "without the companion")


def test_a_setting_inside_an_if_clause_about_the_users_setup_is_the_case():
    key = "model.moe_pad_expert_input_to_capacity"
    for text in ("(If your model *is* drop-and-pad — `moe_expert_capacity_factor` set and "
                 "`moe_pad_expert_input_to_capacity=True` — then `[\"moe\"]` alone is legal.)",
                 "If your MoE is drop-and-pad with `moe_pad_expert_input_to_capacity=True`, moe alone is legal.",
                 "If you already run `moe_pad_expert_input_to_capacity=True`, graph the whole moe layer."):
        assert _roles(text, key) == ["described"], text


def test_a_setting_in_the_consequent_or_a_wish_is_still_advice():
    key = "model.moe_pad_expert_input_to_capacity"
    assert _roles("If you use Bridge, set `moe_pad_expert_input_to_capacity=True` first.", key) == ["suggested"]
    assert _roles("If you want moe graphs, set `moe_pad_expert_input_to_capacity=True`.", key) != ["described"]
    assert _roles("If capture fails, set `moe_pad_expert_input_to_capacity=True`.", key) != ["described"]


def test_a_timing_sentence_that_says_which_iterations_are_warm_up_names_no_window():
    def window(text):
        return find_window(AnswerContext(text, extract_config(text), None))

    assert window("Timing: the first 3 iterations are eager warmup, capture happens at the start of the "
                  "next one. Compare post-capture replay iterations only.") is None
    assert window("Timing: compare the mean of the first 10 iterations of both runs.") is not None


def test_a_json_plan_with_config_object_groups_and_a_flag_list_is_read_as_settings():
    text = ('{\n  "transformer_config_overrides": {"cuda_graph_impl": "local", "cuda_graph_scope": ["full_iteration"]},\n'
            '  "inference_config": {"num_cuda_graphs": 16},\n'
            '  "megatron_lm_flags": ["--cuda-graph-impl", "local", "--decode-only-cuda-graphs"]\n}\n')
    cfg = extract_config(text).config
    assert cfg.get("model.cuda_graph_impl") == "local"
    assert cfg.get("model.cuda_graph_scope") == ["full_iteration"]
    assert cfg.get("inference.num_cuda_graphs") == 16
    assert cfg.get("inference.decode_only_cuda_graphs") is True


def test_a_section_config_objects_keywords_are_that_sections_settings():
    text = (f"{F}python\ninference_config = InferenceConfig(max_requests=128, num_cuda_graphs=None)\n"
            f"ddp = DistributedDataParallelConfig(overlap_grad_reduce=True)\n{F}\n")
    cfg = extract_config(text).config
    assert cfg.has("inference.num_cuda_graphs") and cfg.get("inference.num_cuda_graphs") is None
    assert cfg.get("inference.max_requests") == 128 and cfg.get("ddp.overlap_grad_reduce") is True


def test_a_written_value_that_runs_without_its_effect_fails_validation():
    def answer(n: str) -> str:
        return ("Block-scoped decode graphs on 0.19 with the local impl; decode only, prefill eager.\n\n"
                f"{F}python\nmodel_config = TransformerConfig(cuda_graph_impl=\"local\", cuda_graph_modules=[],\n"
                "    inference_cuda_graph_scope=\"block\", use_te_rng_tracker=True)\n"
                f"inference_config = InferenceConfig(num_cuda_graphs={n}, use_cuda_graphs_for_non_decode_steps=False)\n{F}\n\n"
                "TE-scoped graphs are a training capture, not for inference; the engine runs under inference mode.\n")

    assert _fails_on("inference-decode-graphs", answer("None"), "inference-num-cuda-graphs-none")
    assert not _fails_on("inference-decode-graphs", answer("-1"), "inference-num-cuda-graphs")


def test_a_hunk_headers_yaml_section_is_the_parent_of_its_indented_lines():
    from skill_tools.evaluation.diffs import diff_sides

    patch = ("--- a/conf/train.yaml\n+++ b/conf/train.yaml\n@@ -14,4 +14,5 @@ model:\n"
             "   cuda_graph_impl: transformer_engine\n-  cuda_graph_scope: [moe, moe_router]\n"
             "+  cuda_graph_modules: [moe_router, moe_preprocess]\n+  use_te_rng_tracker: true\n \n"
             " rng:\n+  te_rng_tracker: true\n")
    new, old, removed = diff_sides(patch)
    assert new.startswith("model:\n  cuda_graph_impl") and old.startswith("model:\n") and removed
    cfg = extract_config(f"{F}diff\n{patch}{F}\n").config
    assert cfg.get("model.cuda_graph_modules") == ["moe_router", "moe_preprocess"]
    assert cfg.get("rng.te_rng_tracker") is True
    two = patch + "@@ -40,2 +41,2 @@ model:\n   seq_length: 4096\n+  cuda_graph_warmup_steps: 3\n"
    assert diff_sides(two)[0].count("model:") == 1  # a second hunk under the same section adds no second key


def test_a_capture_placed_in_the_first_iteration_in_other_words_is_a_window():
    def window(text):
        return find_window(AnswerContext(text, extract_config(text), None))

    assert window("# With TE graphs the capture is done in iteration 1, so drop it and average 2..30.\n") is not None
    assert window("# The graphs are captured on the first logged iteration, so drop iteration 1.\n") is not None


BOXED = """ddp:
  overlap_param_gather: true

# ---------------------------------------------------------------------------
# Megatron-FSDP variant (the colleague's wait_bucket_ready failure)
# Same class of bug: the bucket wait sits inside the captured forward. Put FSDP
# in graph mode so it keeps its references stable across replays.
# ---------------------------------------------------------------------------
# ddp:
#   use_megatron_fsdp: true
#   megatron_fsdp_cuda_graph_mode: true
#   fsdp_all_gather_in_start_param_sync: false
"""


def test_a_commented_variant_under_a_boxed_heading_after_the_config_is_an_option():
    ex = extract_config(BOXED)
    assert ex.config.get("ddp.overlap_param_gather") is True
    assert not ex.config.has("ddp.use_megatron_fsdp")  # offered, not merged into the config
    assert any(alt.get("ddp.megatron_fsdp_cuda_graph_mode") is True for alt in ex.alternatives)
    notes = BOXED.split("# ----")[0] + "# Notes\n# * keep attention_dropout == 0 with graphed attention recompute\n"
    assert not extract_config(notes).alternatives  # a note with a comparison in it is no commented config


def test_an_era_comment_continuing_an_alternatives_line_is_offered():
    text = (f"{F}python\ncfg.model.cuda_graph_impl = \"transformer_engine\"\ncfg.model.cuda_graph_modules = [\"attn\"]\n"
            "# * Alternative that keeps full recompute: a full-iteration graph\n"
            "#   (0.18+: cuda_graph_impl=\"full_iteration\", cuda_graph_modules=[];\n{F}\n")
    ex = extract_config(text)
    assert ex.config.get("model.cuda_graph_impl") == "transformer_engine"
    assert [b.role for b in ex.blocks if b.origin == "comment"] == ["alternative"]


def test_python_statements_carried_in_json_strings_are_read_as_python():
    text = ('{\n  "summary": "the local manager cannot graph a partial scope",\n'
            '  "fix": {"bridge_python": ["cfg.model.cuda_graph_impl = \\"transformer_engine\\"",\n'
            '                            "cfg.model.cuda_graph_modules = [\\"mlp\\"]",\n'
            '                            "cfg.rng.te_rng_tracker = True"]}\n}\n')
    cfg = extract_config(text).config
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine"
    assert cfg.get("model.cuda_graph_modules") == ["mlp"] and cfg.get("rng.te_rng_tracker") is True
    assert not any("bridge_python" in k for k in cfg.values)
    prose = '{\n  "summary": "set cfg.model.cuda_graph_impl to local",\n  "notes": ["keep shapes static"]\n}\n'
    assert not extract_config(prose).config.has("model.cuda_graph_impl")  # a sentence in a string is no statement


def test_a_parenthesised_note_beside_a_flag_is_not_its_value():
    text = "Option A:\n\n    --cuda-graph-warmup-steps 0        (Bridge: model.cuda_graph_warmup_steps=0)\n"
    cfg = extract_config(text).config
    assert cfg.get("model.cuda_graph_warmup_steps") == 0


def test_a_bare_args_file_key_another_section_owns_is_that_sections():
    text = f"{F}yaml\n# megatron RL args\nrl_persist_cuda_graphs: true\nrl_kv_cache_management_mode: offload\n{F}\n"
    cfg = extract_config(text).config
    assert cfg.get("inference.rl_persist_cuda_graphs") is True
    under = f"{F}yaml\nmodel:\n  rl_persist_cuda_graphs: true\n{F}\n"  # written under model: it stays there
    assert not extract_config(under).config.has("inference.rl_persist_cuda_graphs")


def test_a_short_line_wrapped_from_a_longer_sentence_does_not_introduce_the_block():
    text = ("On megatron-core 0.16.1 the per-layer coverage list is cuda_graph_scope. cuda_graph_modules only\n"
            "arrives in 0.18, so don't copy it from newer examples.\n\n"
            "    cfg.model.cuda_graph_impl = \"transformer_engine\"\n    cfg.model.cuda_graph_scope = [\"attn\"]\n")
    assert _roles(text, "model.cuda_graph_scope") == ["suggested"]
    label = "Don't copy this one:\n\n    cfg.model.cuda_graph_modules = [\"attn\"]\n"
    assert _roles(label, "model.cuda_graph_modules") == ["counterexample"]


def test_what_a_scope_only_exists_for_is_a_condition_in_an_aside():
    text = ("The `moe` scope only exists for drop-and-pad MoE (capacity factor + "
            "`moe_pad_expert_input_to_capacity=True`), where shapes are fixed.")
    assert _roles(text, "model.moe_pad_expert_input_to_capacity") == ["described"]


def test_a_question_that_lists_a_full_iteration_graph_in_the_setup_states_it():
    from skill_tools.evaluation.stated_setup import lists_full_iteration

    assert lists_full_iteration("64xB200 Bridge run, distributed optimizer, full-iteration CUDA graph, with "
                                "overlap on. It fails after iteration 3.")
    assert lists_full_iteration("I added optimizer_cuda_graph=True to my full-iteration CUDA graph run.")
    assert not lists_full_iteration("Startup fails with 'full recompute is only supported with full iteration "
                                    "CUDA graph.' How do I get both?")  # a quoted message, then a question
    assert not lists_full_iteration("Should I switch to a full-iteration CUDA graph?")


def test_you_can_use_x_instead_offers_an_option_and_use_x_instead_asks_for_it():
    key = "model.cuda_graph_modules"
    assert _roles("You can use `cuda_graph_modules: [moe]` alone instead.", key) == ["alternative"]
    assert _roles("Use `cuda_graph_modules: [moe]` instead.", key) == ["suggested"]
    assert _roles("You can use `cuda_graph_modules: [moe]` instead of the scope list.", key) == ["suggested"]


def test_a_drop_and_pad_items_option_is_judged_with_its_case():
    answer = ("Validator findings: `moe` and `moe_router` can't be combined; TE's RNG tracker is off; "
              "`cuda_graph_scope` is the deprecated key on 0.19.\n\n"
              f"{F}console\n$ skill-tools validate cg.yaml --mcore-version 0.19.2\n{F}\n\n"
              f"- **Dropless** (the usual case):\n\n{F}yaml\nmodel:\n  cuda_graph_impl: transformer_engine\n"
              "  cuda_graph_scope: null\n  cuda_graph_modules: [moe_router, moe_preprocess]\n  use_te_rng_tracker: true\n"
              f"rng:\n  te_rng_tracker: true\n{F}\n\n"
              "- **Drop-and-pad** (`moe_expert_capacity_factor` set and `moe_pad_expert_input_to_capacity: true`): "
              "you can use `cuda_graph_modules: [moe]` *alone* instead.\n")
    row = score_one("run-helper-validate", answer)
    assert not any("moe-scope-needs-drop-pad" in f for f in row["fatal"]), row["fatal"]
    assert any(c["score"] == 1.0 for c in checks_of(row, "options")), checks_of(row, "options")  # the option was judged


def test_an_object_the_subject_exceeds_is_not_claimed_of_it():
    ok = ("Real bugs, report them:\n- a mismatch at the *first* generated token, or log-prob differences far above "
          "bf16 noise\n- graphed differing from graphed across repeated runs\n")
    assert not _fails_on("inference-parity-padded-shapes", ok, "dismissed as noise")
    bad = "A mismatch at the first generated token is just bf16 noise; ignore it.\n"
    assert _fails_on("inference-parity-padded-shapes", bad, "dismissed as noise")


def test_an_org_heading_of_non_fixes_rejects_its_items():
    text = ("* Non-fixes\n- switching to `inference_cuda_graph_scope=\"layer\"`: replays the same buckets\n")
    assert _roles(text, "model.inference_cuda_graph_scope") == ["counterexample"]


def test_a_functions_local_list_and_a_parameters_default_are_the_values_it_writes():
    from skill_tools.config.read_python import read_python

    src = ("def apply(cfg, modules=(\"attn\", \"moe_router\"), warmup=3):\n"
           "    keep = [\"moe_router\", \"moe_preprocess\"]\n"
           "    cfg.model.cuda_graph_modules = list(keep)\n"
           "    cfg.model.cuda_graph_scope = list(modules)\n"
           "    cfg.model.cuda_graph_warmup_steps = warmup\n")
    values = read_python(src, "x").values
    assert values["model.cuda_graph_modules"] == ["moe_router", "moe_preprocess"]
    assert values["model.cuda_graph_scope"] == ["attn", "moe_router"] and values["model.cuda_graph_warmup_steps"] == 3
    changed = src.replace("    cfg.model.cuda_graph_modules", "    keep.append(\"attn\")\n    cfg.model.cuda_graph_modules")
    assert "model.cuda_graph_modules" not in read_python(changed, "x").values  # changed in place: not known here
    no_default = "def apply(cfg, modules):\n    cfg.model.cuda_graph_modules = list(modules)\n"
    assert "model.cuda_graph_modules" not in read_python(no_default, "x").values


def test_any_boxed_heading_over_a_commented_config_offers_it():
    text = BOXED.replace("# Megatron-FSDP variant (the colleague's wait_bucket_ready failure)",
                         "# For the Megatron-FSDP colleague (failure in wait_bucket_ready):").replace(
        "# in graph mode so it keeps its references stable across replays.",
        "# enabled: it is what lets wait_bucket_ready find the bucket already gathered.")
    ex = extract_config(text)
    assert not ex.config.has("ddp.use_megatron_fsdp")
    assert any(alt.get("ddp.megatron_fsdp_cuda_graph_mode") is True for alt in ex.alternatives)
    before = BOXED.replace("# Megatron-FSDP variant (the colleague's wait_bucket_ready failure)", "# Old setup, before the fix:")
    assert not extract_config(before).alternatives  # a box that holds the old config offers nothing


def test_a_purpose_that_names_the_object_before_the_subject_binds_them():
    bad = ("Run all_reduce_perf. For comparing against your hardware (NIC line rate x NICs per node), use algbw "
           "on the large-message rows.\n")
    assert _fails_on("neg-nccl-bandwidth", bad, "algbw is the number")
    good = ("Run all_reduce_perf. For comparing against your hardware, use busbw; algbw depends on the rank "
            "count.\n")
    assert not _fails_on("neg-nccl-bandwidth", good, "algbw is the number")


def test_a_negation_in_the_next_conjunct_leaves_the_object_bound():
    bad = ("Mixed precision: just use `bf16=True`. It works on any CUDA GPU, and on cards without native bf16 "
           "support (T4, V100) PyTorch emulates it.\n")
    assert _fails_on("neg-hf-gradient-checkpointing", bad, "pre-Ampere")
    good = "Mixed precision: `bf16=True` needs an Ampere or newer GPU; on a T4 or V100 use `fp16=True`.\n"
    assert not _fails_on("neg-hf-gradient-checkpointing", good, "pre-Ampere")


def test_only_if_can_you_use_x_instead_offers_x_for_that_case():
    key = "model.cuda_graph_modules"
    text = ("Only if your MoE is drop-and-pad (`moe_expert_capacity_factor` set **and** "
            "`moe_pad_expert_input_to_capacity: true`) can you use `cuda_graph_modules: [moe]` instead.")
    assert _roles(text, key) == ["alternative"]


def test_each_row_of_a_run_table_is_an_option_not_the_fix():
    text = ("| Run | change | if clean… |\n|---|---|---|\n"
            "| C | `overlap_moe_expert_parallel_comm=False` | EP overlap × partial graphs |\n"
            "| D | `cuda_graph_modules=[\"attn\", \"moe\"]` | boundary issue |\n")
    ex = extract_config(text)
    assert not ex.config.has("model.cuda_graph_modules") and not ex.config.has("model.overlap_moe_expert_parallel_comm")
    assert [a.get("model.cuda_graph_modules") for a in ex.alternatives if a.has("model.cuda_graph_modules")] == [["attn", "moe"]]
    findings = text.replace("| Run | change | if clean… |", "| # | finding | why |")
    assert extract_config(findings).config.has("model.cuda_graph_modules")  # a numbered list of findings is not runs


def test_a_range_to_an_open_end_that_starts_at_the_capture_step_is_a_window():
    def window(text):
        return find_window(AnswerContext(text, extract_config(text), None))

    assert window("# With cuda_graph_warmup_steps=3 average iterations 4-N of both logs.\n") is not None
    assert window("# With cuda_graph_warmup_steps=3 average iterations 10-N of both logs.\n") is None


def test_an_emphasised_subject_is_no_term_of_a_formula():
    bad = "# Compare the *algbw* column of the large sizes (1G-8G) against the link speed.\n"
    assert _fails_on("neg-nccl-bandwidth", "Run all_reduce_perf.\n\n```bash\n" + bad + "```\n", "algbw is the number")
    formula = "busbw = algbw * 2(n-1)/n, which is what you compare against the link speed.\n"
    assert not _fails_on("neg-nccl-bandwidth", formula, "algbw is the number")


def test_dont_let_x_happen_then_a_colon_introduces_the_remedy():
    key = "model.cuda_graph_warmup_steps"
    assert _roles("Don't let any eager backward run before capture:\n\n    --cuda-graph-warmup-steps 0\n", key) == ["suggested"]
    assert _roles("Don't use this:\n\n    --cuda-graph-warmup-steps 0\n", key) == ["counterexample"]


def test_a_message_quoted_in_a_code_span_sets_nothing_and_disabled_reads_false():
    key = "rerun_state_machine.check_for_nan_in_loss"
    quoted = "Troubleshooting: ``check_for_nan_in_loss must be disabled``\n"
    assert _roles(quoted, key) == []
    cell = ("| Setting | Why |\n|---|---|\n| NaN checks off | Bridge: `check_for_nan_in_loss must be disabled when "
            "using full_iteration CUDA graph.` |\n")
    assert extract_config(cell).config.get(key) is False  # read at all, it is read as off
    said = "The rerun machine's check_for_nan_in_loss must be disabled with full-iteration graphs.\n"
    assert extract_config(said).config.get(key) is False


def test_a_line_that_starts_by_removing_variables_unsets_them():
    text = f"{F}text\nUnset any NCCL_IB_DISABLE=1, NCCL_P2P_DISABLE=1, NCCL_NET=Socket left over from debugging.\n{F}\n"
    env = extract_config(text).config.env
    assert env.get("NCCL_NET") == "" and env.get("NCCL_IB_DISABLE") == ""
    assert not _fails_on("neg-nccl-bandwidth", "Run all_reduce_perf and compare busbw with the fabric's peak.\n\n" + text, "nccl-forces-sockets")


def test_org_verbatim_spans_are_code_spans_and_the_answer_is_not_to_rejects():
    from skill_tools.evaluation.org_markup import org_verbatim

    org = "#+TITLE: triage\n* Fix\n- Set =rl_persist_cuda_graphs= only when graphs are built.\n#+BEGIN_SRC sh\nA=b=c\n#+END_SRC\n"
    out = org_verbatim(org)
    assert "`rl_persist_cuda_graphs`" in out and "A=b=c" in out and len(out) == len(org)
    assert org_verbatim("x = a=b=c and =y=") == "x = a=b=c and =y="  # no Org document: unchanged
    assert not extract_config(org).config.has("inference.rl_persist_cuda_graphs")
    key = "model.gradient_accumulation_fusion"
    assert _roles("Note: the answer is *not* to turn off `gradient_accumulation_fusion`.", key) == ["counterexample"]
