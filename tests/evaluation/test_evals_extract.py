"""The answer extractor: finds every config format, keeps counterexamples apart, never runs anything."""

from __future__ import annotations

from skill_tools.config.era import read_intent
from skill_tools.evaluation.extract import COUNTEREXAMPLE, REJECTED, SUGGESTED, extract_config

F = "```"


def test_python_yaml_json_blocks():
    text = f"""Config:
{F}python
cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_modules = ["attn"]
{F}
{F}yaml
rng:
  te_rng_tracker: true
{F}
{F}json
{{"model": {{"cuda_graph_warmup_steps": 3}}}}
{F}
"""
    ex = extract_config(text)
    cfg = ex.config
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine"
    assert cfg.get("model.cuda_graph_modules") == ["attn"]
    assert cfg.get("rng.te_rng_tracker") is True
    assert cfg.get("model.cuda_graph_warmup_steps") == 3
    assert [b.kind for b in ex.blocks] == ["python", "yaml", "json"]
    assert ex.blocks[0].line == 3 and "model.cuda_graph_impl" in ex.blocks[0].keys


def test_megatron_lm_flags_skip_launcher_options_and_env():
    text = f"""{F}bash
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
NCCL_GRAPH_REGISTER=0 torchrun --nproc-per-node 8 pretrain_gpt.py \\
    --cuda-graph-impl transformer_engine --cuda-graph-modules attn mlp --te-rng-tracker
{F}"""
    ex = extract_config(text)
    cfg = ex.config
    assert cfg.env == {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True", "NCCL_GRAPH_REGISTER": "0"}
    assert read_intent(cfg).impl == "transformer_engine"
    assert set(read_intent(cfg).modules) == {"attn", "mlp"}
    assert not any("nproc" in k for k in cfg.values), cfg.values


def test_run_script_and_hydra_overrides():
    text = ("uv run python scripts/performance/run_script.py -m qwen -mr qwen3_30b_a3b "
            "--cuda_graph_impl transformer_engine --cuda_graph_scope moe_router,moe_preprocess")
    ex = extract_config(f"{F}bash\n{text} model.cuda_graph_warmup_steps=2\n{F}")
    kinds = sorted(b.kind for b in ex.blocks)
    assert kinds == ["hydra", "run_script"]
    assert set(read_intent(ex.config).modules) == {"moe_router", "moe_preprocess"}
    assert ex.config.get("model.cuda_graph_warmup_steps") == 2


def test_inline_prose_and_negation():
    text = ("Set `rerun_state_machine.check_for_nan_in_loss=False` and model.cuda_graph_warmup_steps=3. "
            "Do not set cuda_graph_impl=local here.")
    ex = extract_config(text)
    assert ex.config.get("rerun_state_machine.check_for_nan_in_loss") is False
    assert ex.config.get("model.cuda_graph_warmup_steps") == 3
    assert not ex.config.has("model.cuda_graph_impl")
    assert ex.counter_config.get("model.cuda_graph_impl") == "local"


def test_before_after_blocks_and_diff():
    text = f"""Before:
{F}python
cfg.model.enable_cuda_graph = True
{F}
After:
{F}python
cfg.model.cuda_graph_impl = "full_iteration"
{F}
{F}diff
- cfg.model.cuda_graph_scope = ["attn"]
+ cfg.model.cuda_graph_modules = ["attn"]
{F}"""
    ex = extract_config(text)
    roles = [(b.role, b.keys) for b in ex.blocks]
    assert roles[0] == (COUNTEREXAMPLE, ["model.enable_cuda_graph"])
    assert roles[1][0] == SUGGESTED
    assert ex.config.get("model.cuda_graph_impl") == "full_iteration"
    assert ex.config.get("model.cuda_graph_modules") == ["attn"]
    assert not ex.config.has("model.cuda_graph_scope") and not ex.config.has("model.enable_cuda_graph")


def test_unreadable_fragment_is_a_parse_finding_not_a_crash():
    ex = extract_config(f"{F}python\ncfg.model.cuda_graph_impl = (\n{F}")
    assert any(f.kind == "parse" for f in ex.findings)
    assert not ex.unsafe and ex.config.values == {}


def test_no_config_in_plain_prose():
    ex = extract_config("Profile first; graphs help launch-bound steps. See the docs, e.g. https://x.org/a?b=c.")
    assert ex.config.values == {} and ex.blocks == []


def test_rejected_blocks_are_marked():
    ex = extract_config(f"{F}yaml\nmodel: !!python/object/apply:os.system ['id']\n{F}")
    assert ex.blocks[0].role == REJECTED and ex.unsafe


# --- candidates and their polarity: decided by each setting's own clause, not by earlier words ---

F3 = "```"


def test_block_introduced_by_instead_of_is_recommended():
    ex = extract_config(f"Instead of the old local + full_iteration scope, use:\n{F3}yaml\nmodel:\n"
                        f"  cuda_graph_impl: full_iteration\n{F3}", era="current")
    assert ex.config.get("model.cuda_graph_impl") == "full_iteration"


def test_rejected_value_is_not_a_recommendation():
    ex = extract_config("`cuda_graph_impl=full_iteration` is rejected on 0.16; use `cuda_graph_impl=local` "
                        "with `cuda_graph_scope=[\"full_iteration\"]`.", era="legacy")
    assert ex.config.get("model.cuda_graph_impl") == "local"
    assert ex.counter_config.get("model.cuda_graph_impl") == "full_iteration"


def test_x_instead_of_y_in_one_sentence():
    ex = extract_config("Set cuda_graph_impl=transformer_engine instead of cuda_graph_impl=local.")
    assert ex.config.get("model.cuda_graph_impl") == "transformer_engine"
    assert ex.counter_config.get("model.cuda_graph_impl") == "local"


def test_drop_and_pad_is_not_a_negation():
    ex = extract_config('For drop-and-pad MoE set model.cuda_graph_scope=["attn","moe"].')
    assert ex.config.get("model.cuda_graph_scope") == ["attn", "moe"]


def test_era_aside_and_alternative_are_kept_apart():
    ex = extract_config('Use cuda_graph_modules=["attn"] on 0.18+ (cuda_graph_scope=["attn"] on 0.16-0.17), '
                        'optionally widening to cuda_graph_modules=["attn","mlp"].', era="current")
    assert dict(ex.config) == {"model.cuda_graph_modules": ["attn"]}
    assert dict(ex.other_era) == {"model.cuda_graph_scope": ["attn"]}
    assert [dict(a) for a in ex.alternatives] == [{"model.cuda_graph_modules": ["attn", "mlp"]}]
    legacy = extract_config(ex_text := 'Use cuda_graph_modules=["attn"] on 0.18+ (cuda_graph_scope=["attn"] on 0.16-0.17).',
                            era="legacy")
    assert dict(legacy.config) == {"model.cuda_graph_scope": ["attn"]}, ex_text


def test_old_era_block_is_that_eras_spelling_but_before_is_rejected():
    text = (f"Old (0.16-0.17):\n{F3}yaml\nmodel:\n  cuda_graph_scope: [attn]\n{F3}\n"
            f"New (0.18+):\n{F3}yaml\nmodel:\n  cuda_graph_modules: [attn]\n{F3}\n")
    assert dict(extract_config(text, era="legacy").config) == {"model.cuda_graph_scope": ["attn"]}
    assert dict(extract_config(text, era="current").config) == {"model.cuda_graph_modules": ["attn"]}
    before = extract_config(f"Before:\n{F3}yaml\nmodel:\n  cuda_graph_impl: local\n{F3}\nAfter:\n{F3}yaml\n"
                            f"model:\n  cuda_graph_impl: transformer_engine\n{F3}\n")
    assert before.config.get("model.cuda_graph_impl") == "transformer_engine"


def test_extraction_is_linear_in_answer_length():
    import time
    chunk = "Set `model.cuda_graph_impl=transformer_engine` and do not use cuda_graph_scope=full_iteration; keep it. "
    for n in (10_000, 100_000):
        start = time.process_time()
        extract_config((chunk * (n // len(chunk) + 1))[:n])
        elapsed = time.process_time() - start
    assert elapsed < 20.0, elapsed  # was 16-195 s when every match rescanned the text before it


# --------------------------------------------------------------------------------------------
# styles of the held-out set (evals/answers/heldout.jsonl): tables, diffs with context, shell
# variables, settings stated in words, era tags the block's own keys contradict
# --------------------------------------------------------------------------------------------


def test_key_value_table_rows_take_their_column_era():
    text = ("| key | value (megatron-core 0.16.1) |\n|---|---|\n"
            "| `cfg.model.cuda_graph_impl` | `\"transformer_engine\"` |\n"
            "| `cfg.model.cuda_graph_scope` | `[\"attn\", \"mlp\"]` |\n"
            "| `cfg.rng.te_rng_tracker` | `True` |\n")
    ex = extract_config(text, era="legacy")
    assert ex.config.get("model.cuda_graph_impl") == "transformer_engine"
    assert ex.config.get("model.cuda_graph_scope") == ["attn", "mlp"]
    assert ex.config.get("rng.te_rng_tracker") is True
    assert all(b.era == "legacy" for b in ex.blocks)


def test_before_after_table_columns():
    text = ("| | 0.16 (before) | 0.19 (after) |\n|---|---|---|\n"
            "| Recipe 2 | `cuda_graph_scope = [\"attn\",\"moe_router\"]` | `cuda_graph_modules = [\"attn\",\"moe_router\"]` |\n")
    ex = extract_config(text, era="current")
    assert ex.config.get("model.cuda_graph_modules") == ["attn", "moe_router"]
    assert not ex.config.has("model.cuda_graph_scope")
    assert ex.other_era.get("model.cuda_graph_scope") == ["attn", "moe_router"]


def test_diff_context_lines_keep_yaml_parents_and_are_not_rejected():
    text = ("```diff\n model:\n   moe_pad_expert_input_to_capacity: true\n-  cuda_graph_impl: none\n"
            "+  cuda_graph_impl: transformer_engine\n+  cuda_graph_modules: [attn, moe]\n```\n")
    ex = extract_config(text)
    assert ex.config.get("model.cuda_graph_impl") == "transformer_engine"
    assert ex.config.get("model.cuda_graph_modules") == ["attn", "moe"]
    assert ex.counter_config.get("model.cuda_graph_impl") == "none"
    assert not ex.counter_config.has("model.moe_pad_expert_input_to_capacity")


def test_shell_variable_holding_overrides_and_bash_array():
    text = ("```bash\nOVERRIDES=\"model.cuda_graph_impl=local model.cuda_graph_scope=[full_iteration]\"\n"
            "python run_recipe.py $OVERRIDES\nARGS=(\n  --te-rng-tracker\n)\n```\n")
    ex = extract_config(text)
    assert ex.config.get("model.cuda_graph_impl") == "local"
    assert ex.config.get("model.cuda_graph_scope") == ["full_iteration"]
    assert "OVERRIDES" not in ex.config.env and "ARGS" not in ex.config.env


def test_settings_stated_in_words_fill_only_what_is_not_written_out():
    text = ("In your recipe the implementation is transformer_engine and the module list holds just attn. "
            "Turn on both TE RNG tracker switches (model.use_te_rng_tracker and rng.te_rng_tracker).")
    ex = extract_config(text, era="current")
    assert ex.config.get("model.cuda_graph_impl") == "transformer_engine"
    assert ex.config.get("model.cuda_graph_modules") == ["attn"]
    assert ex.config.get("model.use_te_rng_tracker") is True and ex.config.get("rng.te_rng_tracker") is True
    written = extract_config("Use `cuda_graph_impl=local`; transformer_engine graphs are training-only.")
    assert written.config.get("model.cuda_graph_impl") == "local"
    legacy = extract_config("Use the transformer_engine implementation with attn and mlp captured.", era="legacy")
    assert legacy.config.get("model.cuda_graph_scope") == ["attn", "mlp"]
    off = extract_config("Don't turn on model.use_te_rng_tracker here.")
    assert not off.config.has("model.use_te_rng_tracker")


def test_asides_in_modules_sentence_do_not_name_modules():
    ex = extract_config("Use the transformer_engine implementation with moe_router plus moe_preprocess "
                        "(moe_preprocess needs moe_router, and moe and moe_router are mutually exclusive).",
                        era="current")
    assert ex.config.get("model.cuda_graph_modules") == ["moe_router", "moe_preprocess"]


def test_legacy_tag_contradicted_by_current_only_keys_is_dropped():
    text = ("For recipe 2, add the new key and keep the old one for backward compatibility with your 0.16 jobs:\n\n"
            "```python\ncfg.model.cuda_graph_modules = [\"attn\"]\ncfg.model.cuda_graph_scope = [\"attn\"]\n```\n")
    ex = extract_config(text, era="current")
    assert ex.config.get("model.cuda_graph_modules") == ["attn"] and ex.config.get("model.cuda_graph_scope") == ["attn"]


def test_is_the_deprecated_spelling_rejects_and_at_needs_a_number():
    ex = extract_config("enable_cuda_graph=True is the deprecated spelling of the local implementation. "
                        "Leave cuda_graph_modules at its empty default and cuda_graph_warmup_steps at 3.")
    assert not ex.config.has("model.enable_cuda_graph") and ex.counter_config.get("model.enable_cuda_graph") is True
    assert not ex.config.has("model.cuda_graph_modules")
    assert ex.config.get("model.cuda_graph_warmup_steps") == 3


def test_intro_aside_does_not_reject_the_block():
    text = ("Capture only router + preprocess (never combine moe with moe_router):\n\n"
            "```bash\n--cuda-graph-impl transformer_engine --cuda-graph-modules moe_router moe_preprocess\n```\n")
    ex = extract_config(text)
    assert ex.config.get("model.cuda_graph_impl") == "transformer_engine"


def test_impl_in_words_only_where_recommended():
    described = extract_config("The crash is the combination of the local implementation with a partial scope.")
    assert not described.config.has("model.cuda_graph_impl")
    told = extract_config("Switch to transformer_engine for the scoped capture.")
    assert told.config.get("model.cuda_graph_impl") == "transformer_engine"


def test_key_then_quoted_value_and_scope_list_in_words():
    ex = extract_config('Use cuda_graph_impl "transformer_engine", keep the scope at ["mlp"].', era="current")
    assert ex.config.get("model.cuda_graph_impl") == "transformer_engine"
    assert ex.config.get("model.cuda_graph_modules") == ["mlp"]


def test_numbered_options_after_the_first_are_alternatives():
    ex = extract_config('Two ways out: (1) selective recompute, recompute_modules=["mlp"]; or (2) keep full '
                        'recompute and capture the whole iteration with cuda_graph_impl="full_iteration".')
    assert ex.config.get("model.recompute_modules") == ["mlp"]
    assert not ex.config.has("model.cuda_graph_impl")
    assert any(a.get("model.cuda_graph_impl") == "full_iteration" for a in ex.alternatives)
