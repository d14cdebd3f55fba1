"""Answers judged by what they would do, in forms the readers met late: a config key one spelling
away from a field (any task, off-topic ones too), an eager control run named beside the graphed
config, the 0.16-0.17 whole-iteration spelling offered without its impl, a one-value flag in a
sentence, a choice made inside a list item's continuation lines, and variables named for the era
they hold. The answers are written for these tests, in styles of their own."""

from __future__ import annotations

import pytest

from skill_tools.evaluation.derived import misspelled
from skill_tools.evaluation.era_branches import CURRENT, LEGACY, name_era, named_split
from skill_tools.evaluation.extract import extract_config

from tests.evaluation.one_answer import checks_of, score_one

F = "```"

VPP_ANSWER = (
    "Keep TP inside the node and let PP handle memory; interleave to shrink the bubble.\n\n"
    f"{F}python\ncfg = llama3_70b_pretrain_config()\ncfg.model.tensor_model_parallel_size = 4\n"
    "cfg.model.pipeline_model_parallel_size = 4\ncfg.model.{vpp} = 5\ncfg.model.context_parallel_size = 2\n"
    f"{F}\n")


def test_a_misspelled_bridge_key_fails_an_off_topic_answer():
    row = score_one("neg-megatron-tp-sizing", VPP_ANSWER.format(vpp="virtual_pipeline_parallel_size"))
    (check,) = checks_of(row, "key_spelling")
    assert not row["passed"] and check["score"] == 0.0
    assert "virtual_pipeline_model_parallel_size" in check["explanation"]
    good = score_one("neg-megatron-tp-sizing", VPP_ANSWER.format(vpp="virtual_pipeline_model_parallel_size"))
    assert good["passed"] and not checks_of(good, "key_spelling")


def test_a_key_the_readers_placed_under_model_is_not_charged():
    # "cuda_grpah_impl" written bare: the readers put it under model., the answer did not
    assert misspelled(["model.cuda_grpah_impl"], "set cuda_grpah_impl: local") == []
    assert misspelled(["model.cuda_grpah_impl"], "cfg.model.cuda_grpah_impl = 'local'") == [
        ("model.cuda_grpah_impl", "model.cuda_graph_impl")]


DECODE = (
    "On 0.19 only the local implementation serves decode.\n\n"
    f"{F}python\nconfig = TransformerConfig(..., cuda_graph_impl=\"local\", inference_cuda_graph_scope=\"block\",\n"
    "                           use_te_rng_tracker=True)\n"
    f"{F}\n\nVerify: compare decode tokens/s and greedy outputs against an eager run "
    "(`inference_cuda_graph_scope=\"none\"`).\n")


def test_the_eager_control_run_is_not_an_option_laid_over_the_graphed_config():
    row = score_one("inference-decode-graphs", DECODE)
    assert not row["fatal"] and not [c for c in checks_of(row, "options") if c["score"] == 0.0]
    # offered as a fallback instead, the eager decode run is an option: judged as the graphs-off run, and valid
    fallback = DECODE.replace("compare decode tokens/s and greedy outputs against an eager run",
                              "if decode is not faster, fall back to eager decode")
    assert [c["score"] for c in checks_of(score_one("inference-decode-graphs", fallback), "options")] == [1.0]


def test_a_full_iteration_scope_offered_alone_means_the_local_impl():
    answer = (
        "Per-module scopes need Transformer Engine:\n\n"
        f"{F}python\ncfg.model.cuda_graph_impl = \"transformer_engine\"\ncfg.model.cuda_graph_modules = [\"mlp\"]\n"
        "cfg.model.use_te_rng_tracker = True\ncfg.rng.te_rng_tracker = True\n"
        f"{F}\n\nIf what you actually wanted was one graph for the whole iteration, `local` is right, but only as "
        "`cuda_graph_scope=[\"full_iteration\"]`.\n")
    row = score_one("local-partial-scope-crash", answer)
    assert [c["score"] for c in checks_of(row, "options")] == [1.0], row["fatal"]  # judged, and valid


def test_a_one_value_flag_in_a_sentence_takes_one_word():
    text = ("A recompute region may not cover a graphed region, so with\n"
            "--cuda-graph-impl transformer_engine MCore asserts that moe_router is not graphed.\n")
    ex = extract_config(text)
    assert ex.config.get("model.cuda_graph_impl") == "transformer_engine"
    lists = extract_config("Then run with --cuda-graph-modules attn mlp --cuda-graph-warmup-steps 3 and compare.")
    assert lists.config.get("model.cuda_graph_modules") == ["attn", "mlp"]
    assert lists.config.get("model.cuda_graph_warmup_steps") == 3


def test_pick_one_inside_a_list_items_continuation_is_that_items_choice():
    text = ("What the findings mean:\n\n"
            "1. **`moe` + `moe_router` can't be combined.** `moe` graphs the whole MoE MLP; `moe_router` graphs only\n"
            "   the router. Pick one. For dropless MoE use the router path.\n"
            "2. **RNG tracker**: turn it on.\n\n"
            "Fixed config:\n\n"
            f"{F}yaml\nmodel:\n  cuda_graph_impl: transformer_engine\n  cuda_graph_modules: [moe_router, moe_preprocess]\n"
            f"  use_te_rng_tracker: true\nrng:\n  te_rng_tracker: true\n{F}\n")
    ex = extract_config(text)
    assert ex.config.get("model.cuda_graph_modules") == ["moe_router", "moe_preprocess"]
    assert not ex.alternatives


@pytest.mark.parametrize("name,era", [
    ("OVERRIDES_019", CURRENT), ("ARGS_0_16", LEGACY), ("MCORE_V018_FLAGS", CURRENT), ("SCOPE_LEGACY", LEGACY),
    ("overrides_current", CURRENT), ("GPUS_16", None), ("OVERRIDES", None), ("X019", None),
])
def test_era_from_a_variable_name(name, era):
    assert name_era(name) == era


def test_variables_named_for_each_era_are_read_one_era_each():
    python = (f"{F}python\nOVERRIDES_019 = ['model.cuda_graph_impl=transformer_engine', 'model.cuda_graph_modules=[attn,moe]']\n"
              "OVERRIDES_016 = [\n    'model.cuda_graph_impl=transformer_engine',\n    'model.cuda_graph_scope=[attn,moe]',\n]\n"
              f"{F}\n")
    shell = (f"{F}bash\nARGS_019=\"model.cuda_graph_impl=transformer_engine model.cuda_graph_modules=[attn,moe]\"\n"
             "ARGS_016=(\n  model.cuda_graph_impl=transformer_engine\n  model.cuda_graph_scope=[attn,moe]\n)\n"
             f"python train.py $ARGS_019\n{F}\n")
    for text in (python, shell):
        current = extract_config(text, era=CURRENT).config
        assert "model.cuda_graph_scope" not in current.values and current.get("model.cuda_graph_modules") == ["attn", "moe"]
        legacy = extract_config(text, era=LEGACY).config
        assert "model.cuda_graph_modules" not in legacy.values and legacy.get("model.cuda_graph_scope") == ["attn", "moe"]
    assert named_split("ARGS_019='--cuda-graph-impl local'\n", "shell") == []  # one era named: one block


def test_the_users_full_iteration_run_quoted_back_is_not_the_answers_instruction():
    from skill_tools.config.model import CanonicalConfig
    from skill_tools.evaluation.stated_setup import restated_keys

    cfg = CanonicalConfig.from_nested({"model": {"cuda_graph_impl": "local", "cuda_graph_scope": ["full_iteration"],
                                                 "cuda_graph_warmup_steps": 3}})
    stated = CanonicalConfig()
    runs = "I launch Qwen3-30B-A3B fp8 with full-iteration graphs by calling run_script.py directly and OOM."
    assert restated_keys(cfg, stated, runs) == {"model.cuda_graph_impl", "model.cuda_graph_scope"}
    wish = "How do I turn on full-iteration graphs for my Llama run?"
    assert restated_keys(cfg, stated, wish) == frozenset()


@pytest.mark.parametrize("tail", [
    "Keep whichever is faster, or go back to `cuda_graph_impl = \"none\"` if neither helps.",
    "If it's flat for you, keep `cuda_graph_impl=\"none\"`.",
    "| E0 | eager (`cuda_graph_impl=\"none\"`) | steady state | step time |",
    "- [ ] tokens/s beats an eager A/B (`cuda_graph_impl: none`) on the same prompts",
])
def test_the_eager_control_or_fallback_does_not_replace_the_graphed_recommendation(tail):
    text = (f"Start with TE graphs on attention:\n\n{F}python\ncfg.model.cuda_graph_impl = \"transformer_engine\"\n"
            f"cfg.model.cuda_graph_modules = [\"attn\"]\n{F}\n\nThen A/B it.\n\n{tail}\n")
    assert extract_config(text).config.get("model.cuda_graph_impl") == "transformer_engine"


def test_a_markdown_thematic_break_passes_no_flag():
    ex = extract_config("**TL;DR**: profile first.\n\n---\n\n### 1. Gate\n\nLook at the timeline.\n")
    assert ex.config.values == {} and not ex.blocks


def test_a_jsonnet_mixin_is_read_as_its_sections():
    text = ("// overrides/graphs.libsonnet\n\n{\n  model+: {\n    cuda_graph_impl: 'transformer_engine',   // TE graphed callables\n"
            "    cuda_graph_scope: ['attn'],\n    cuda_graph_warmup_steps: 3,\n  },\n  rng+: {\n    te_rng_tracker: true,\n  },\n}\n")
    cfg = extract_config(text).config
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine" and cfg.get("model.cuda_graph_scope") == ["attn"]
    assert cfg.get("rng.te_rng_tracker") is True


def test_each_whole_config_of_a_decision_matrix_is_judged_on_its_own():
    zero2 = '{"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}, "offload_param": {"device": "cpu"}}, "bf16": {"enabled": true}}'
    zero3 = '{"zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"}}, "bf16": {"enabled": true}}'
    answer = f"| plan | config |\n|---|---|\n\n**Plan A (recommended)**\n\n{F}json\n{zero2}\n{F}\n\n**Plan B**\n\n{F}json\n{zero3}\n{F}\n"
    row = score_one("neg-deepspeed-zero", answer)
    (domain,) = checks_of(row, "domain")
    assert domain["score"] == 0.0 and "[ds-offload-param-needs-stage-3]" in domain["explanation"]
    fixed = score_one("neg-deepspeed-zero", answer.replace(zero2, zero2.replace('"stage": 2', '"stage": 3')))
    assert checks_of(fixed, "domain")[0]["score"] is None


def test_a_runbooks_first_phase_with_a_config_is_the_plan():
    text = ("## Phase 0 — is it worth it?\n\nProfile eager first at TP=1, PP=1.\n\n## Phase 1 — static shapes\n\n"
            "Keep `micro_batch_size = 1` fixed.\n\n## Phase 2 — TE on attn\n\n"
            f"{F}python\ncfg.model.cuda_graph_impl = \"transformer_engine\"\ncfg.model.cuda_graph_modules = [\"attn\"]\n{F}\n\n"
            f"## Phase 3 — widen\n\n{F}python\ncfg.model.cuda_graph_modules = [\"attn\", \"mlp\"]\n{F}\n")
    ex = extract_config(text)
    assert ex.config.get("model.cuda_graph_impl") == "transformer_engine"
    assert ex.config.get("model.cuda_graph_modules") == ["attn"]
    assert any(a.get("model.cuda_graph_modules") == ["attn", "mlp"] for a in ex.alternatives)


def test_not_an_option_rejects_what_follows():
    ex = extract_config("**Not an option:** `cuda_graph_impl=\"local\"` with `[\"attn\"]`; Bridge refuses it.\n")
    assert not ex.config.values.get("model.cuda_graph_impl") and not ex.alternatives


def test_a_keyed_table_row_marked_refused_is_not_offered():
    text = ("| megatron-core | `cuda_graph_impl` | with `cpu_offloading=True` |\n|---|---|---|\n"
            "| 0.18 / 0.19 | `local` | ❌ |\n| 0.18 / 0.19 | `transformer_engine` | ❌ |\n")
    ex = extract_config(text)
    assert not ex.config.values.get("model.cuda_graph_impl") and not ex.alternatives


def test_symbols_after_a_flag_in_a_sentence_are_not_its_value():
    ex = extract_config("Megatron-LM sets these when `--cuda-graph-impl ≠ none` is combined with FSDP.")
    assert "model.cuda_graph_impl" not in ex.config.values


def test_an_ellipsis_after_an_option_stands_for_its_value():
    from skill_tools.evaluation.tool_commands import invocations

    (argv, _), = list(invocations("Then `skill-tools precheck --config …` profiles eager first.\n"))
    assert argv == ["precheck", "--config", "PLACEHOLDER"]


VARIANTS_FILE = """# experiments/llama31_8b_graphs.yaml (OmegaConf.merge(base, variants[name]))
common:
  rng:
    te_rng_tracker: true
  model:
    use_te_rng_tracker: true
    cuda_graph_warmup_steps: 3
variants:
  v0_eager:
    model:
      cuda_graph_impl: none
  v1_attn:
    model:
      cuda_graph_impl: transformer_engine
      cuda_graph_scope: null
      cuda_graph_modules: [attn]
  v2_wider:
    model:
      cuda_graph_impl: {impl}
      cuda_graph_scope: null
      cuda_graph_modules: [attn, mlp]
"""


def test_each_run_of_a_variants_file_is_an_option_judged_on_its_own():
    from skill_tools.evaluation.variants import document_variants

    common, runs = document_variants(VARIANTS_FILE.format(impl="local"))
    assert common["rng"] == {"te_rng_tracker": True} and len(runs) == 3
    assert runs[1]["model"]["use_te_rng_tracker"] is True  # each run starts from the common section
    bad = score_one("dense-te-scoped-bringup", VARIANTS_FILE.format(impl="local"))
    assert [c["score"] for c in checks_of(bad, "options")] == [0.0]  # Bridge refuses local with a module list
    good = score_one("dense-te-scoped-bringup", VARIANTS_FILE.format(impl="transformer_engine"))
    assert [c["score"] for c in checks_of(good, "options")] == [1.0]


def test_a_section_named_for_megatrons_arguments_holds_model_keys():
    toml = ("```toml\n[runtime]\nnproc_per_node = 8\n\n[megatron]\ncuda_graph_impl = \"local\"\n"
            "inference_cuda_graph_scope = \"block\"\n```\n")
    assert extract_config(toml).config.get("model.inference_cuda_graph_scope") == "block"
    ansible = ("```yaml\nmbridge_model_overrides:\n  cuda_graph_impl: transformer_engine\n  cuda_graph_scope: [attn, mlp]\n```\n")
    assert extract_config(ansible).config.get("model.cuda_graph_scope") == ["attn", "mlp"]


def test_an_answer_that_is_a_list_of_experiment_runs_is_read_run_by_run():
    from skill_tools.evaluation.variants import document_variants

    text = ("# nan-bisect.yaml\ncommon: &common\n  rng.te_rng_tracker: true\n  model.use_te_rng_tracker: true\n\n"
            "experiments:\n  - name: a0-repro\n    <<: *common\n    model.cuda_graph_impl: transformer_engine\n"
            "    model.cuda_graph_modules: [attn]\n    expect: \"NaN around it 90\"\n\n"
            "  - name: a1-off\n    <<: *common\n    model.cuda_graph_impl: none\n\n"
            "  - name: a2-moe\n    <<: *common\n    model.cuda_graph_impl: transformer_engine\n    model.cuda_graph_modules: [moe]\n")
    common, runs = document_variants(text)
    assert common == {"rng": {"te_rng_tracker": True}, "model": {"use_te_rng_tracker": True}}
    assert [r["model"].get("cuda_graph_modules") for r in runs] == [["attn"], None, ["moe"]]
    assert "expect" not in runs[0]["model"]  # a run's notes are not config
    ex = extract_config(text)
    assert [a.get("model.cuda_graph_modules") for a in ex.alternatives] == [["attn"], ["moe"]]


def test_make_variables_named_for_each_era_are_read_one_era_each():
    text = ("# 0.16/0.17 spell the scope --cuda-graph-scope; 0.18+ --cuda-graph-modules\n"
            "GRAPH_ARGS_016 := --cuda-graph-impl transformer_engine --cuda-graph-scope attn\n"
            "GRAPH_ARGS_018 := --cuda-graph-impl transformer_engine --cuda-graph-modules attn\n")
    current = extract_config(text, era=CURRENT).config
    assert current.get("model.cuda_graph_modules") == ["attn"] and "model.cuda_graph_scope" not in current.values
    legacy = extract_config(text, era=LEGACY).config
    assert legacy.get("model.cuda_graph_scope") == ["attn"] and "model.cuda_graph_modules" not in legacy.values


def test_with_a_setting_something_fails_describes_the_failure():
    ex = extract_config("4. **TE RNG tracker is required.** With `use_te_rng_tracker=False`, Bridge's "
                        "`GPTModelProvider.provide()` fails with `Transformer engine's RNG tracker is required`.\n")
    assert "model.use_te_rng_tracker" not in ex.config.values
    assert extract_config("With `cuda_graph_warmup_steps=3`, train as usual.").config.get("model.cuda_graph_warmup_steps") == 3


def test_bridges_set_cuda_graph_modules_helper_writes_the_eras_key():
    text = ("```python\nfrom megatron.bridge.utils.cuda_graph import set_cuda_graph_modules\n"
            "cfg.model.cuda_graph_impl = \"transformer_engine\"\n"
            "set_cuda_graph_modules(cfg.model, [\"moe_router\", \"moe_preprocess\"])\n```\n")
    current = extract_config(text, era=CURRENT).config
    assert current.get("model.cuda_graph_modules") == ["moe_router", "moe_preprocess"]
    assert current.has("model.cuda_graph_scope") and current.get("model.cuda_graph_scope") is None
    legacy = extract_config(text, era=LEGACY).config
    assert legacy.get("model.cuda_graph_scope") == ["moe_router", "moe_preprocess"]
    assert "model.cuda_graph_modules" not in legacy.values


def test_the_loss_nan_check_named_alone_in_words():
    cfg = extract_config("Keep the full-iteration requirements (`cuda_graph_impl=\"full_iteration\"`, TE RNG tracker on, "
                         "NaN-in-loss check off).").config
    assert cfg.get("rerun_state_machine.check_for_nan_in_loss") is False and "ddp.check_for_nan_in_grad" not in cfg.values
