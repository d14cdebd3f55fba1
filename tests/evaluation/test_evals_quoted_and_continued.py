"""What an answer restates or continues: a runtime warning the answer's own value causes (TE graphs
for decode), the user's setup quoted back, a flag inside prose in another script, overrides kept in a
justfile variable, and an option whose settings go on under its heading. Answers written for these
tests, through the whole scorer."""

from __future__ import annotations

from one_answer import checks_of, score_one

from skill_tools.evaluation.extract import extract_config

RL = ("Colocated generation never built CudaGraphManagers, so decode ran eager without an error; upgrade NeMo-RL "
      "and look for '> built ... cuda graph(s)' in the generation log. The persist assert comes from the flag "
      "being set while the policy builds no graphs. With KV-cache offload, export NCCL_GRAPH_REGISTER=0.\n")


def _written(row: dict) -> dict:
    (check,) = checks_of(row, "written_settings")
    return check


def test_a_value_that_makes_decode_run_eager_is_charged():
    gen = "Your generation config is right:\n\n```yaml\nmcore_generation_config:\n  cuda_graph_impl: local\n" \
          "  inference_cuda_graph_scope: block\n```\n\n"
    wrong = score_one("rl-colocated-eager-decode", RL + gen + "Once upgraded, move generation to "
                                                              "`cuda_graph_impl: transformer_engine` for faster decode.\n")
    assert _written(wrong)["score"] == 0.0 and "without its effect" in _written(wrong)["explanation"]
    assert not wrong["passed"]
    right = score_one("rl-colocated-eager-decode", RL + gen + "Keep it on `local` after the upgrade.\n")
    assert right["passed"], right["fatal"]


def test_the_users_own_setting_quoted_back_is_not_an_instruction():
    quoted = score_one("rl-colocated-eager-decode", RL + "\n| Phase | What happens |\n|---|---|\n"
                                                         "| init (policy, `cuda_graph_impl: none`) | no managers |\n\n"
                                                         "```\n--rl-persist-cuda-graphs is set but no CUDA graphs are being built.\n```\n")
    assert quoted["passed"], quoted["fatal"]
    assert _written(quoted)["score"] in (None, 1.0)


def test_a_flag_in_prose_takes_no_words_of_another_script_as_values():
    cfg = extract_config("Βάλε --rl-persist-cuda-graphs μόνο όταν πράγματι χτίζονται graphs.").config
    assert cfg.get("inference.rl_persist_cuda_graphs") is True
    assert extract_config("用 --cuda-graph-impl local，然后看日志").config.get("model.cuda_graph_impl") == "local"


JUST = '''recipe := "llama3_8b_pretrain_config"

graphs := "model.cuda_graph_impl=full_iteration \\
  model.cuda_graph_modules=[] \\
  rerun_state_machine.check_for_nan_in_loss=false \\
  ddp.check_for_nan_in_grad=false"

full-iter:
    torchrun --nproc-per-node 8 scripts/training/run_recipe.py --recipe {{recipe}} {{graphs}}
'''


def test_overrides_held_in_a_justfile_variable_are_read():
    cfg = extract_config(JUST).config
    assert cfg.get("model.cuda_graph_impl") == "full_iteration"
    assert cfg.get("ddp.check_for_nan_in_grad") is False and cfg.get("rerun_state_machine.check_for_nan_in_loss") is False


def test_a_string_of_prose_in_a_variable_is_not_read():
    assert not extract_config('note := "set things up as you like"\nmsg="see the docs for more"\n').config.values


OPTIONS = '''Two combinations work.

### Option 1: selective recompute outside the graph

```python
cfg.model.recompute_granularity = "selective"
cfg.model.recompute_modules = ["mlp"]
cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_modules = ["attn"]
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True
```

### Option 2: keep full recompute, capture the whole iteration

| megatron-core | settings |
|---|---|
| 0.18 / 0.19 | `cuda_graph_impl="full_iteration"` |
| 0.16 / 0.17 | `cuda_graph_impl="local"`, `cuda_graph_scope=["full_iteration"]` |

For both: keep `recompute_granularity="full"`, `recompute_method="uniform"`, `recompute_num_layers=1`, and set
`rerun_state_machine.check_for_nan_in_loss=False` and `ddp.check_for_nan_in_grad=False`.
'''


def test_settings_that_go_on_under_an_options_heading_join_that_option():
    ex = extract_config(OPTIONS, era="current")
    (full,) = [a for a in ex.alternatives if a.get("model.recompute_granularity") == "full"]
    assert full.get("model.cuda_graph_impl") == "full_iteration"


def test_a_second_implementation_under_one_heading_stays_its_own_option():
    ex = extract_config("### Options\n\nAlternatively `cuda_graph_impl=\"local\"`.\n"
                        "Alternatively `cuda_graph_impl=\"transformer_engine\"`.\n", era="current")
    impls = sorted(str(a.get("model.cuda_graph_impl")) for a in ex.alternatives)
    assert impls == ["local", "transformer_engine"]


def test_a_quoted_message_in_a_code_span_is_not_flags():
    cfg = extract_config("The CLI says `--cuda-graph-scope and --cuda-graph-modules cannot be used together.` when "
                         "both are given.").config
    assert not cfg.values
    assert extract_config("Use `--cuda-graph-impl local --cuda-graph-modules attn mlp`.").config.get(
        "model.cuda_graph_modules") == ["attn", "mlp"]


def test_a_restriction_stated_of_a_setting_does_not_ask_for_it():
    text = 'Check your recipe: whole-layer (`recompute_granularity="full"`) recompute is only allowed with full-iteration graphs.'
    assert not extract_config(text).config.values
    assert extract_config('Set `recompute_granularity="full"` to save memory.').config.get(
        "model.recompute_granularity") == "full"


def test_each_spelling_of_an_option_keeps_its_own_era():
    text = ('If what you actually wanted was one graph for the whole iteration: `cuda_graph_impl="local"` + '
            '`cuda_graph_scope=["full_iteration"]` on 0.16–0.17, or `cuda_graph_impl="full_iteration"` on 0.18+, '
            'with `rerun_state_machine.check_for_nan_in_loss=False`.')
    legacy = extract_config(text, era="legacy")
    current = extract_config(text, era="current")
    impls = lambda ex: {a.get("model.cuda_graph_impl") for a in ex.alternatives} | {ex.config.get("model.cuda_graph_impl")}  # noqa: E731
    assert "full_iteration" not in impls(legacy) and "local" in impls(legacy)
    assert "full_iteration" in impls(current)


def test_a_quoted_message_in_a_fence_is_not_a_setting():
    text = ("```python\ncfg.model.cuda_graph_impl = \"full_iteration\"\ncfg.model.cuda_graph_modules = []\n```\n\n"
            "megatron-core enforces that the list is empty:\n\n```\n"
            "cuda_graph_modules must be empty when cuda_graph_impl=\"full_iteration\".\n```\n")
    assert extract_config(text).config.get("model.cuda_graph_impl") == "full_iteration"


def test_the_baseline_and_the_fallback_do_not_override_the_recommendation():
    text = ("```python\ncfg.model.cuda_graph_impl = \"full_iteration\"\n```\n\n## How to verify\n\n"
            "1. Eager baseline: same config with `cuda_graph_impl=\"none\"`, same seed, ~30 iterations.\n"
            "2. Compare steady-state iterations only.\n\n"
            "If the replayed iterations are not faster, the step is not launch-bound: set `cuda_graph_impl=\"none\"` again.\n")
    assert extract_config(text).config.get("model.cuda_graph_impl") == "full_iteration"


def test_what_stock_recipes_set_is_described_not_asked_for():
    assert not extract_config('Stock Bridge recipes set `cuda_graph_scope="full"` themselves, so clear it.').config.values
    assert not extract_config('The base recipe sets `cuda_graph_scope="full"`.').config.values
    for asked in ('In your recipe set `cuda_graph_scope=None`.', 'In the recipe set `cuda_graph_scope=None`.'):
        assert extract_config(asked).config.has("model.cuda_graph_scope"), asked


def test_what_follows_instead_of_and_a_colon_is_asked_for():
    """'instead of tuning further: run with `X`' rejects the tuning, not X."""
    cfg = extract_config("Register it in the captured region instead of tuning further: run with "
                         "`--cuda-graph-impl transformer_engine --cuda-graph-modules attn`.").config
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine"
    assert not extract_config("Use TE graphs instead of `--cuda-graph-impl local`.").config.has("model.cuda_graph_impl")


def test_each_spelling_in_one_parenthesis_keeps_its_era():
    text = ('Go back to `attn`. (Spelling: `cuda_graph_scope=["attn"]` on megatron-core 0.16–0.17, '
            '`cuda_graph_modules=["attn"]` on 0.18+.)')
    assert extract_config(text, era="legacy").config.values == {"model.cuda_graph_scope": ["attn"]}
    assert extract_config(text, era="current").config.values == {"model.cuda_graph_modules": ["attn"]}


def test_an_era_tab_heading_keeps_its_era_despite_its_aside():
    from skill_tools.evaluation.polarity import heading_era

    assert heading_era("### Tab: megatron-core 0.18+ (only once you upgrade — don't use on 0.16.1)") == (True, "current")
    text = ("### Tab: megatron-core 0.16.x (what you run)\n\n```python\ncfg.model.cuda_graph_impl = \"local\"\n"
            "cfg.model.cuda_graph_scope = [\"full_iteration\"]\n```\n\n`cuda_graph_impl=\"full_iteration\"` doesn't pass "
            "the 0.16 config.\n\n### Tab: megatron-core 0.18+ (only once you upgrade — don't use on 0.16.1)\n\n```python\n"
            "cfg.model.cuda_graph_impl = \"full_iteration\"\ncfg.model.cuda_graph_modules = []\n```\n")
    legacy = extract_config(text, era="legacy").config
    assert legacy.get("model.cuda_graph_impl") == "local" and not legacy.has("model.cuda_graph_modules")
