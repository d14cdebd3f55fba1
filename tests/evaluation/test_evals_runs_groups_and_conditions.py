"""Answers whose settings sit in forms the readers misread until the GPU runs showed it: a recipe
file with an eager target beside the graphed one, an override string held in a variable, another
tool's options on its own command line, a grouping table invented inside a section, a condition
stated in an aside, a table that maps module names to the code they cover. The answers are written
for these tests, in styles of their own."""

from __future__ import annotations

from skill_tools.config.cli_tables import known_option
from skill_tools.evaluation.extract import extract_config

from tests.evaluation.one_answer import checks_of, score_one

F = "```"

JUSTFILE = """\
# justfile: whole-iteration graphs for our Bridge entry point (megatron-core 0.19)

set shell := ["bash", "-c"]

overrides := "model.cuda_graph_impl=full_iteration model.cuda_graph_modules=[] model.cuda_graph_warmup_steps=3 model.use_te_rng_tracker=true rng.te_rng_tracker=true rerun_state_machine.check_for_nan_in_loss=false ddp.check_for_nan_in_grad=false optimizer.overlap_param_gather_with_optimizer_step=false"

# eager reference, same everything else
eager steps="40":
    torchrun --nproc-per-node 8 train.py train.train_iters={{steps}} model.cuda_graph_impl=none

# graphed run
graphed steps="40":
    torchrun --nproc-per-node 8 train.py train.train_iters={{steps}} {{overrides}}

# compare steady-state iterations only
compare:
    python tools/steps.py logs/eager.log logs/graphed.log --drop-head 10
"""


def test_a_recipe_file_reads_the_graphed_target_and_not_the_eager_one():
    cfg = extract_config(JUSTFILE, era="current").config
    assert cfg.get("model.cuda_graph_impl") == "full_iteration"
    assert not cfg.has("model.drop_head")  # another tool's option is no Megatron setting
    row = score_one("full-iteration-current", JUSTFILE)
    assert row["passed"] and not row["fatal"]
    assert [c["score"] for c in checks_of(row, "graph")] == [1.0]


def test_an_eager_target_alone_still_counts_as_no_graph_advice():
    only_eager = JUSTFILE.split("# graphed run")[0]
    cfg = extract_config(only_eager, era="current").config
    # the override string still holds the graph settings; the eager target's `none` is its control
    assert cfg.get("model.cuda_graph_impl") == "full_iteration"
    no_string = only_eager.split("overrides :=")[0] + only_eager.split("optimizer.overlap_param_gather_with_optimizer_step=false\"")[1]
    assert not extract_config(no_string, era="current").config.has("model.cuda_graph_impl")


def test_another_tools_options_are_kept_when_megatron_knows_one_of_them():
    assert known_option("--cuda-graph-impl") and known_option("--micro-batch-size")
    assert not known_option("--drop-head")
    script = f"{F}bash\npython pretrain_gpt.py --micro-batch-size 1 --cuda-graph-impl full_iteration --drop-head 3\n{F}\n"
    cfg = extract_config(script).config
    assert cfg.get("model.cuda_graph_impl") == "full_iteration"


TOML = """\
Serving profile for the dynamic engine on megatron-core 0.17:

{F}toml
[model]
num_layers = 32

[model.cuda_graphs]
cuda_graph_impl            = "local"
inference_cuda_graph_scope = "block"
{F}
"""


def test_a_grouping_table_inside_a_section_is_read_as_the_fields_it_holds():
    cfg = extract_config(TOML.format(F=F)).config
    assert cfg.get("model.cuda_graph_impl") == "local"
    assert cfg.get("model.inference_cuda_graph_scope") == "block"
    row = score_one("inference-decode-legacy-017", TOML.format(F=F))
    assert not row["passed"]  # the 0.18 field on 0.17 is judged as such
    assert any("inference_cuda_graph_scope" in c["explanation"] for c in checks_of(row, "era_spelling"))


def test_a_yaml_anchor_template_is_not_collapsed_into_the_section():
    text = (f"{F}yaml\n_common: &common\n  cuda_graph_impl: transformer_engine\nmodel:\n  <<: *common\n"
            f"  cuda_graph_modules: [attn]\n{F}\n")
    cfg = extract_config(text).config
    assert cfg.get("model.cuda_graph_modules") == ["attn"]


DROPLESS = """\
Dropless MoE cannot graph the whole `moe` module: the `moe` scope is only accepted for **drop-and-pad** MoE \
(`moe_expert_capacity_factor` set *and* `moe_pad_expert_input_to_capacity=True`). The `moe` scope needs \
padding (`moe_pad_expert_input_to_capacity=True`) as well.

| module | what it covers |
|---|---|
| `moe_router` | `MoELayer.router()` |
| `moe_preprocess` | `MoELayer.preprocess()` |

{F}python
cfg.model.moe_token_dispatcher_type = "alltoall"
cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_modules = ["moe_router", "moe_preprocess"]
cfg.model.cuda_graph_warmup_steps = 3
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True
{F}
"""


def test_a_condition_in_an_aside_and_a_module_table_are_not_settings():
    cfg = extract_config(DROPLESS.format(F=F)).config
    assert not cfg.has("model.moe_pad_expert_input_to_capacity")
    assert not cfg.has("model.moe_preprocess") and not cfg.has("model.moe_router")
    assert cfg.get("model.cuda_graph_modules") == ["moe_router", "moe_preprocess"]
    # the same setting asked for in the answer's own words is still read
    asked = DROPLESS.format(F=F) + "\nFor drop-and-pad runs set `moe_pad_expert_input_to_capacity=True`.\n"
    assert extract_config(asked).config.get("model.moe_pad_expert_input_to_capacity") is True


HF_DIFF = """\
Recompute activations and run in bf16:

{F}diff
--- a/train.py
+++ b/train.py
@@ -12,6 +12,7 @@ model = AutoModelForCausalLM.from_pretrained(
     args.model_name,
     torch_dtype=torch.bfloat16,
 )
+model.{method}(gradient_checkpointing_kwargs={{"use_reentrant": False}})
 
 training_args = TrainingArguments(
{F}
"""


def test_a_method_call_added_by_a_diff_hunk_that_starts_mid_statement_is_judged():
    wrong = score_one("neg-hf-gradient-checkpointing", HF_DIFF.format(F=F, method="enable_gradient_checkpointing"))
    assert any("gradient_checkpointing_enable" in f for f in wrong["fatal"])
    right = score_one("neg-hf-gradient-checkpointing", HF_DIFF.format(F=F, method="gradient_checkpointing_enable"))
    assert not any("PreTrainedModel" in f for f in right["fatal"])


RUNBOOK = """\
Teardown hang
=============

If you run a custom loop, tear down in this order::

    {first}
    {second}
    gc.collect()

   This keeps the graphs from holding live communicators.
"""
DESTROY = "torch.distributed.destroy_process_group()"
DELETE = "cuda_graph_helper.delete_cuda_graphs()"


def test_a_restructuredtext_literal_block_is_a_program_the_order_rules_read():
    wrong = score_one("diagnose-teardown-hang", RUNBOOK.format(first=DESTROY, second=DELETE))
    assert any("destroys the process group before" in f for f in wrong["fatal"])
    right = score_one("diagnose-teardown-hang", RUNBOOK.format(first=DELETE, second=DESTROY))
    assert not any("destroys the process group before" in f for f in right["fatal"])
    shown_as_bad = RUNBOOK.replace("tear down in this order", "never tear down like this")
    assert not any("destroys the process group before" in f
                   for f in score_one("diagnose-teardown-hang", shown_as_bad.format(first=DESTROY, second=DELETE))["fatal"])


def test_an_environment_alone_is_validated_on_the_tasks_setup():
    env = (f"Set this for the graphed run so the pools can grow in place:\n\n{F}bash\n"
           f"export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n{F}\n")
    row = score_one("no-speedup-after-capture", env)
    assert any("NCCL_GRAPH_REGISTER" in f for f in row["fatal"])
    both = env.replace("expandable_segments:True\n", "expandable_segments:True\nexport NCCL_GRAPH_REGISTER=0\n")
    assert not any("NCCL_GRAPH_REGISTER" in f for f in score_one("no-speedup-after-capture", both)["fatal"])


BISECT = '''\
# bisect_overrides.py: one change per run against the failing run

BASE = {
    "model.cuda_graph_impl": "transformer_engine",
    "model.cuda_graph_modules": ["attn"],
    "model.use_te_rng_tracker": True,
    "rng.te_rng_tracker": True,
}

RUNS = {
    "eager": {"model.cuda_graph_impl": "none"},
    "no_ep_overlap": {"model.overlap_moe_expert_parallel_comm": False},
    "other_rng": {%s},
}

if __name__ == "__main__":
    for name, ov in RUNS.items():
        print(name, {**BASE, **ov})
'''


def test_variants_laid_over_a_base_are_judged_as_the_runs_they_make():
    from skill_tools.evaluation.variants import variant_overrides

    runs = variant_overrides(BISECT % '"rng.seed": 7')
    assert all("model.cuda_graph_impl=" in r for r in runs)  # each run carries the base
    assert "model.cuda_graph_impl=transformer_engine" in runs[1]
    fine = score_one("diagnose-nan-after-graphs", BISECT % '"rng.seed": 7')
    assert not [c for c in checks_of(fine, "options") if c["score"] == 0.0]
    # a run that turns the tracker off under TE graphs cannot start: the option itself writes it
    bad = score_one("diagnose-nan-after-graphs", BISECT.replace('    "model.use_te_rng_tracker": True,\n    "rng.te_rng_tracker": True,\n', "")
                    % '"model.use_te_rng_tracker": False, "rng.te_rng_tracker": False')
    assert [c["score"] for c in checks_of(bad, "options")] == [0.0] and not bad["passed"]


ARGV_YAML = """\
# launch args for the MoE run (megatron-core 0.19)
args:
  - --num-experts=64
  - --expert-model-parallel-size=8
  - --moe-token-dispatcher-type=alltoall
  - --overlap-moe-expert-parallel-comm
  - --cuda-graph-impl=transformer_engine
  - --cuda-graph-modules
  - attn
  - {module}
  - --te-rng-tracker
"""


def test_a_yaml_argument_list_is_read_as_the_command_line_it_is():
    cfg = extract_config(ARGV_YAML.format(module="moe_router"), era="current").config
    assert cfg.get("model.cuda_graph_modules") == ["attn", "moe_router"]
    assert cfg.get("model.overlap_moe_expert_parallel_comm") is True and not cfg.has("model.args")
    row = score_one("delayed-wgrad-ep-overlap", ARGV_YAML.format(module="moe"))
    assert not row["passed"] and any("captures excluded module" in f for f in row["fatal"])


SED_SUMMARY = """\
# Full-iteration graphs on 0.16 sync on the NaN checks inside capture: turn both off.
sed -i \\
  -e 's/^\\(\\s*check_for_nan_in_loss:\\s*\\).*/\\1false/' \\
  -e 's/^\\(\\s*check_for_nan_in_grad:\\s*\\).*/\\1false/' \\
  conf/run.yaml
# resulting keys:
#   rerun_state_machine.check_for_nan_in_loss: false
#   ddp.check_for_nan_in_grad: {grad}
#   model.cuda_graph_impl: local
#   model.cuda_graph_scope: [full_iteration]     # 0.16 spelling

# (or pass the same keys as overrides:
#   rerun_state_machine.check_for_nan_in_loss=false ddp.check_for_nan_in_grad={grad}).
"""


def test_a_config_the_comments_spell_out_as_the_result_is_read():
    right = score_one("diagnose-log-nan-assert", SED_SUMMARY.format(grad="false"))
    assert right["passed"], right["fatal"]
    assert right["config"]["values"]["ddp.check_for_nan_in_grad"] is False
    wrong = score_one("diagnose-log-nan-assert", SED_SUMMARY.format(grad="true"))
    assert not wrong["passed"]
    # the same lines under a label that says what was there before are not the answer's config
    before = SED_SUMMARY.replace("# resulting keys:", "# the keys before the edit:").replace(
        "# (or pass the same keys as overrides:", "# (the old overrides were:")
    assert not extract_config(before, era="legacy").config.has("model.cuda_graph_scope")


def test_what_to_search_for_is_not_what_to_set():
    from skill_tools.evaluation.polarity import LinePolarity

    s = ("Also grep your launch scripts for `--cuda-graph-scope` and `--enable-cuda-graph` and switch them "
         "to `--cuda-graph-impl full_iteration`.")
    roles = [LinePolarity(s).at(s.find(w), s.find(w) + len(w)).role
             for w in ("`--cuda-graph-scope`", "`--enable-cuda-graph`", "`--cuda-graph-impl full_iteration`")]
    assert roles == ["described", "described", "suggested"]


OPTIONS_ONLY = '''\
"""Why packed SFT trips TE graphs: TE-scoped graphs (cuda_graph_impl="transformer_engine") replay
through a path that accepts only Tensor inputs.

Option A: no graphs for packed SFT.
Option B: offline packing with static shapes.
"""


def option_a(cfg):
    cfg.model.cuda_graph_impl = "none"
    return cfg


def option_b(cfg):
    cfg.dataset.pad_to_max_length = True
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_modules = ["attn"]
    cfg.rng.te_rng_tracker = True
    return cfg
'''


def test_a_mention_in_prose_is_no_main_config_where_the_answer_writes_only_options():
    ex = extract_config(OPTIONS_ONLY, era="current")
    assert not ex.config.has("model.cuda_graph_impl")  # the docstring names TE graphs; it asks for nothing
    assert "transformer_engine" in {o.get("model.cuda_graph_impl") for o in ex.alternatives}


def test_a_named_config_object_is_not_collapsed_into_the_section():
    text = (f"{F}yaml\nmodel:\n  mcore_generation_config:\n    cuda_graph_impl: local\n"
            f"  megatron_cfg:\n    cuda_graph_impl: none\n{F}\n")
    cfg = extract_config(text, era="current").config
    assert not cfg.has("model.cuda_graph_impl")


def test_a_timed_range_that_ends_its_sentence_is_read():
    base = ("Bring-up: `cuda_graph_impl=\"transformer_engine\"`, `cuda_graph_modules=[\"attn\"]`, "
            "`cuda_graph_warmup_steps=3`, both TE RNG tracker flags; keep seq_length and micro_batch_size fixed.\n\n"
            "Run 10 iterations of each and take the mean iteration time over iterations {window}.\n")
    bad = score_one("dense-te-scoped-bringup", base.format(window="1-10"))
    assert [c["score"] for c in checks_of(bad, "timing_window")] == [0.0]
    good = score_one("dense-te-scoped-bringup", base.format(window="6-10"))
    assert [c["score"] for c in checks_of(good, "timing_window")] == [None]


def _role(sentence: str, span: str) -> str:
    from skill_tools.evaluation.polarity import LinePolarity

    i = sentence.find(span)
    return LinePolarity(sentence).at(i, i + len(span)).role


def test_third_party_setups_and_preferences_are_not_the_recommendation():
    from skill_tools.evaluation.polarity import intro_polarity

    assert intro_polarity("Switch to selective recompute of modules that don't cover the graphed router:").role == "suggested"
    assert intro_polarity("Don't use this:").role == "counterexample"
    assert _role("The recipe ships with **full recompute** (`recompute_granularity=\"full\"`, `recompute_num_layers=1`).",
                 "`recompute_granularity=\"full\"`") == "described"
    assert _role("Las recetas Llama de Bridge ponen `ddp.check_for_nan_in_grad = True`, así que apágala.",
                 "`ddp.check_for_nan_in_grad = True`") == "described"
    assert _role("If you'd rather stay dropless, use `moe_expert_capacity_factor=None` instead.",
                 "`moe_expert_capacity_factor=None`") == "alternative"


DROP_PAD = f"""\
With drop-and-pad the MoE block can be captured.

{F}python
cfg.model.moe_expert_capacity_factor = 1.0
cfg.model.moe_pad_expert_input_to_capacity = True
cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_modules = ["attn", "moe"]
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True
{F}

Drop-and-pad is a trade-off: you spend FLOPs on padding and drop overflow tokens. If you'd rather stay
dropless, use `["attn", "moe_router", "moe_preprocess"]` with `moe_expert_capacity_factor=None` instead.
"""


def test_a_dropless_option_and_a_verb_with_its_own_object_do_not_fail_a_drop_pad_answer():
    row = score_one("moe-drop-pad-moe-scope", DROP_PAD)
    assert row["passed"], row["fatal"]
    assert row["config"]["values"]["model.moe_expert_capacity_factor"] == 1.0
    # the claim itself is still caught when the verb's object is the pad flag
    bad = DROP_PAD + "\nThe padding flag is optional; drop it if throughput matters.\n"
    assert any("padding to capacity optional" in f for f in score_one("moe-drop-pad-moe-scope", bad)["fatal"])


TWO_RECIPES = f"""\
### Recipe 1: whole-iteration graph

| | 0.16 | 0.19 |
|---|---|---|
| impl | `enable_cuda_graph = True` | `cuda_graph_impl = "full_iteration"` |
| coverage | `cuda_graph_scope = ["full_iteration"]` | `cuda_graph_modules = []` |

{F}python
cfg.model.cuda_graph_impl = "full_iteration"
cfg.model.cuda_graph_modules = []
cfg.model.cuda_graph_scope = None
cfg.rerun_state_machine.check_for_nan_in_loss = False
cfg.ddp.check_for_nan_in_grad = False
{F}

### Recipe 2: TE-scoped graphs

| | 0.16 | 0.19 |
|---|---|---|
| impl | `cuda_graph_impl = "transformer_engine"` | unchanged |
| coverage | `cuda_graph_scope = ["attn", "moe_router"]` | `cuda_graph_modules = ["attn", "moe_router"]` |

{F}python
cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_scope = None
cfg.model.cuda_graph_modules = ["attn", "moe_router"]
{F}

Recipes often set `cfg.model.cuda_graph_scope = "full"`, so adding only `cuda_graph_modules = [...]` fails.

### What I would not do
- Use `cuda_graph_impl="local"` with `attn` as a workaround.
"""


def test_recipes_named_by_their_headings_are_separate_configs():
    ex = extract_config(TWO_RECIPES, era="current")
    assert ex.config.get("model.cuda_graph_impl") == "full_iteration"
    assert ex.config.get("model.cuda_graph_modules") == []  # recipe 2's list is recipe 2's
    assert any(o.get("model.cuda_graph_modules") == ["attn", "moe_router"] for o in ex.alternatives)
    # "[...]" stands for any list, and the list under "What I would not do" is not offered
    assert all(o.get("model.cuda_graph_impl") != "local" for o in ex.alternatives)
    row = score_one("migrate-016-to-019", TWO_RECIPES)
    assert not [f for f in row["fatal"] if "full-iteration-modules-not-empty" in f or "scope-unknown" in f]


def test_a_named_dict_of_graph_fields_and_a_base_that_others_extend():
    serving = (f"{F}python\nmodel_config_overrides = dict(\n    cuda_graph_impl=\"local\",\n"
               f"    inference_cuda_graph_scope=\"block\",\n    use_te_rng_tracker=True,\n)\n{F}\n")
    cfg = extract_config(serving, era="current").config
    assert cfg.get("model.cuda_graph_impl") == "local" and cfg.get("model.inference_cuda_graph_scope") == "block"
    base = serving.replace("model_config_overrides", "BASE").replace(f")\n{F}", f")\nkw = dict(BASE)\nkw['x'] = 1\n{F}")
    assert not extract_config(base, era="current").config.has("model.cuda_graph_impl")


def test_a_recipe_files_variables_are_filled_in_for_the_commands_it_names():
    from skill_tools.evaluation.recipe_vars import expanded

    just = 'st := "skill-tools"\ncfg := "a.yaml"\n\nrecommend:\n    {{st}} recommend {{cfg}} --json\n'
    assert "skill-tools recommend a.yaml --json" in expanded(just)
    assert expanded("no variables here: {{x}}") == "no variables here: {{x}}"
    make = "ST = skill-tools\nvalidate:\n\t$(ST) validate conf.yaml\n"
    assert "skill-tools validate conf.yaml" in expanded(make)


def test_a_bare_key_the_sentence_places_in_a_section():
    from skill_tools.evaluation.spans import placed_by_owner

    assert placed_by_owner("pad_to_max_length=True", "Leave the dataset's ") == "dataset.pad_to_max_length=True"
    assert placed_by_owner("pad_to_max_length=True", "Leave the ") == "pad_to_max_length=True"
    assert placed_by_owner("model.x=1", "the dataset's ") == "model.x=1"


BASH_BISECT = """\
Bisect, one change per run:

```bash
declare -A VARIANTS=(
  [A_eager]="model.cuda_graph_impl=none"
  [B_te_attn]="model.cuda_graph_impl=transformer_engine model.cuda_graph_modules=[attn] model.use_te_rng_tracker=true rng.te_rng_tracker=true"
  [D_te_moe]="model.cuda_graph_impl=transformer_engine model.cuda_graph_modules=[D_MODULE] model.use_te_rng_tracker=true rng.te_rng_tracker=true"
)
for name in A_eager B_te_attn D_te_moe; do
  python run_recipe.py ${VARIANTS[$name]}
done
```
"""


def test_a_bash_array_of_runs_is_read_as_variants():
    from skill_tools.evaluation.variants import shell_variant_dict, variant_overrides

    runs = variant_overrides(shell_variant_dict(BASH_BISECT.replace("D_MODULE", "moe")))
    assert len(runs) == 3 and "model.cuda_graph_impl=none" in runs[0]
    bad = score_one("diagnose-nan-after-graphs", BASH_BISECT.replace("D_MODULE", "moe"))
    assert [c["score"] for c in checks_of(bad, "options")] == [0.0]
    good = score_one("diagnose-nan-after-graphs", BASH_BISECT.replace("D_MODULE", "attn"))
    assert not [c for c in checks_of(good, "options") if c["score"] == 0.0]


RUN_LIST = """\
Please run the following and attach the curves:

1. **Baseline A/B.** `cuda_graph_impl=none` vs your current `transformer_engine` + `attn`.

2. **Take RNG out.** The most common source of "slowly wrong" numerics is RNG: rerun the graph variant with \
`model.use_te_rng_tracker={v}` and `rng.te_rng_tracker={v}`.
"""


def test_a_list_of_runs_offers_each_run_and_scare_quotes_are_no_verdict():
    bad = score_one("diagnose-nan-after-graphs", RUN_LIST.format(v="False"))
    assert not bad["passed"] and any("te-rng-tracker" in f for f in bad["fatal"])
    ex = extract_config(RUN_LIST.format(v="False"), era="current")
    assert not ex.config.has("model.cuda_graph_impl")  # one side of the A/B, not the recommendation
    assert any(o.get("model.use_te_rng_tracker") is False for o in ex.alternatives)


REPORT = """{
  "command": "skill-tools validate cg.yaml --mcore-version 0.19.2 --json",
  "input": {"model.cuda_graph_impl": "transformer_engine", "model.cuda_graph_scope": ["moe", "moe_router"]},
  "fixed_config": {"model.cuda_graph_impl": "transformer_engine", "model.cuda_graph_modules": %s,
                   "model.cuda_graph_scope": null, "model.use_te_rng_tracker": true, "rng.te_rng_tracker": true}
}"""


def test_a_json_report_is_read_for_the_config_it_fixes():
    ex = extract_config(REPORT % '["moe_router", "moe_preprocess"]', era="current")
    assert ex.config.get("model.cuda_graph_modules") == ["moe_router", "moe_preprocess"]
    assert ex.config.get("model.cuda_graph_scope") is None
    bad = score_one("run-helper-validate", REPORT % '["moe_preprocess"]')
    assert any("moe-preprocess-needs-router" in f for f in bad["fatal"])


def test_a_cross_check_run_is_an_option_and_a_row_names_its_subject_after_a_group_column():
    assert _role("Als unabhängige Gegenprobe die Implementierung wechseln: `cuda_graph_impl=\"transformer_engine\"` mit "
                 "`inference_cuda_graph_scope=\"layer\"`.", "`cuda_graph_impl=\"transformer_engine\"`") == "alternative"
    assert _role("As a cross-check, switch to `cuda_graph_impl=\"transformer_engine\"`.",
                 "`cuda_graph_impl=\"transformer_engine\"`") == "alternative"
    table = ("| Model | Layer | What it is | Scope |\n|---|---|---|---|\n"
             "| Qwen3.5 | Gated DeltaNet layers | linear recurrent mixer | `{s}` |\n")
    bad = score_one("gdn-mamba-scope", table.format(s="mamba"))
    assert any("GDN under mamba" in f for f in bad["fatal"])
    good = score_one("gdn-mamba-scope", table.format(s="attn"))
    assert not any("GDN under mamba" in f for f in good["fatal"])


FSDP_COMMENTED = """Set `overlap_param_gather_with_optimizer_step: false`: its all-gather is issued outside the captured
iteration and waited on inside it.

```yaml
optimizer:
  overlap_param_gather_with_optimizer_step: false
# ---------------------------------------------------------------------------
# Colleague's Megatron-FSDP run (wait_bucket_ready). Same pattern. Use FSDP's graph mode:
# ---------------------------------------------------------------------------
# ddp:
#   use_megatron_fsdp: true
#   megatron_fsdp_cuda_graph_mode: true
#   fsdp_all_gather_in_start_param_sync: true    # keep: issues the first all-gather early
```
"""


def test_a_commented_yaml_section_under_a_use_label_is_read():
    row = score_one("diagnose-stream-capture-isolation", FSDP_COMMENTED)
    assert not row["passed"]
    assert any("fsdp_all_gather_in_start_param_sync" in f for f in row["fatal"]), row["fatal"]
    fixed = FSDP_COMMENTED.replace("start_param_sync: true    # keep: issues the first all-gather early",
                                   "start_param_sync: false")
    row = score_one("diagnose-stream-capture-isolation", fixed)
    assert not any("fsdp_all_gather_in_start_param_sync" in f for f in row["fatal"]), row["fatal"]


def test_a_task_runner_target_named_eager_is_the_control():
    from skill_tools.evaluation.recast import CONTROL_RUN

    assert all(CONTROL_RUN.match(t) for t in ('eager iters="40":', "  train:eager-baseline:", "bench-no-graphs:"))
    assert not any(CONTROL_RUN.match(t) for t in ("train:graphs-selective:", "# eager vs graphs", "  eager_run: true"))
    taskfile = """# Taskfile.yml: TE attn graphs + selective recompute of the MLP

tasks:
  train:graphs:
    cmds:
      - >
        torchrun run_recipe.py
        model.cuda_graph_impl=transformer_engine model.cuda_graph_modules=[attn]
        model.recompute_granularity=selective model.recompute_modules=[mlp]

  train:eager-baseline:
    cmds:
      - >
        torchrun run_recipe.py
        model.cuda_graph_impl=none
        model.recompute_granularity=full
"""
    values = extract_config(taskfile).config.values
    assert values.get("model.cuda_graph_impl") == "transformer_engine", values
    assert values.get("model.recompute_granularity") == "selective", values


def test_a_manifests_nested_argument_list_is_read_after_the_launchers_own_flags():
    job = """# PyTorchJob for the MoE run
apiVersion: kubeflow.org/v1
kind: PyTorchJob
spec:
  pytorchReplicaSpecs:
    Master:
      template:
        spec:
          containers:
            - name: pytorch
              command: ["torchrun"]
              args:
                - "--nproc-per-node=8"
                - "pretrain_gpt.py"
                # ... model args unchanged ...
                - "--cuda-graph-impl"
                - "transformer_engine"
                - "--cuda-graph-modules"
                - "attn"
                - "moe_router"
"""
    values = extract_config(job).config.values
    assert values.get("model.cuda_graph_modules") == ["attn", "moe_router"], values
    argo = job.replace('"pretrain_gpt.py"', '"scripts/training/run_recipe.py"').replace(
        '- "--cuda-graph-impl"\n                - "transformer_engine"\n                - "--cuda-graph-modules"\n'
        '                - "attn"\n                - "moe_router"',
        "- model.cuda_graph_impl=full_iteration\n                - model.cuda_graph_modules=[]\n"
        "                - rerun_state_machine.check_for_nan_in_loss=false")
    values = extract_config(argo).config.values
    assert values.get("model.cuda_graph_impl") == "full_iteration", values
    assert values.get("rerun_state_machine.check_for_nan_in_loss") is False, values


def test_a_flag_value_held_in_a_defaulted_shell_variable_is_read():
    script = """```bash
SCOPE=${SCOPE:-block}        # or: layer
GRAPH_ARGS=(
  --cuda-graph-impl local
  --inference-cuda-graph-scope "${SCOPE}"
)
source "${MODEL_ARGS_FILE:?file that defines MODEL_ARGS}"
torchrun -m examples.inference.offline_inference "${MODEL_ARGS[@]}" "${GRAPH_ARGS[@]}"
```
"""
    values = extract_config(script).config.values
    assert values.get("model.inference_cuda_graph_scope") == "block", values
    from skill_tools.config.shell_words import variables

    assert variables("A=${A:-x}\nB=${B-y}\nC=3\nC=${C:-z}\n")["C"] == [("3", 4)]


def test_a_placeholder_the_user_fills_in_does_not_void_a_python_block():
    block = ("```python\ncfg = <your Qwen3-30B-A3B pretrain recipe>()\ncfg.model.cuda_graph_impl = \"transformer_engine\"\n"
             "cfg.model.cuda_graph_modules = [\"moe_router\", \"moe_preprocess\"]\n```\n")
    values = extract_config(block).config.values
    assert values.get("model.cuda_graph_modules") == ["moe_router", "moe_preprocess"], values
    from skill_tools.evaluation.doc_fences import untemplated_python

    assert untemplated_python("if a < b and c > d:\n    x = 1\n") == "if a < b and c > d:\n    x = 1\n"  # parses: unchanged


def test_a_setting_called_the_other_valid_choice_is_offered_not_recommended():
    text = ("Use `cuda_graph_modules: [moe_router, moe_preprocess]` with `cuda_graph_impl: transformer_engine`. "
            "If your MoE is actually drop-and-pad (capacity factor + `moe_pad_expert_input_to_capacity=True`), "
            "`cuda_graph_modules: [moe]` on its own is the other valid choice.\n")
    values = extract_config(text).config.values
    assert values.get("model.cuda_graph_modules") == ["moe_router", "moe_preprocess"], values
