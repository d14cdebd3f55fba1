"""Forms answers take that the readers must see through: git's word diff (``[-old-]{+new+}``)
printed by a ``$ git diff`` in a pasted session, a flag line whose arrow to the new spelling sits on
the next line, a list under a "DON'T" label, a Lua module that returns its override table, an
unquoted ``$var`` in a ``skill-tools`` command, and a claim inside an if-clause ("if you have been
comparing algbw …"). Answers written for these tests, through the whole scorer."""

from __future__ import annotations

from one_answer import score_one

from skill_tools.evaluation.diffs import diff_sides
from skill_tools.evaluation.tool_commands import invocations

WORD_DIFF = """$ git diff --word-diff=plain -- recipes/
diff --git a/recipes/te_moe.py b/recipes/te_moe.py
--- a/recipes/te_moe.py
+++ b/recipes/te_moe.py
@@ def build(cfg):
    cfg.model.cuda_graph_impl = "transformer_engine"
    [-cfg.model.cuda_graph_scope = ["attn", "moe_router"]-]
    {+cfg.model.cuda_graph_scope = None+}
    {+cfg.model.cuda_graph_modules = ["attn", "moe_router"]+}
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

Megatron-LM flags, same mapping:
  --cuda-graph-impl transformer_engine --cuda-graph-scope attn moe_router
      ->  --cuda-graph-impl transformer_engine --cuda-graph-modules attn moe_router
"""


def test_word_diff_sides():
    new, old, removed = diff_sides("    [-x = 1-]\n    {+x = 2+}\n    y = [-3-]{+4+}\n")
    assert removed and "x = 2" in new and "x = 1" not in new and "y = 4" in new
    assert "x = 1" in old and "y = 3" in old


def test_a_word_diff_printed_by_git_diff_is_the_change_and_an_arrow_on_the_next_line_rejects_the_old_flags():
    row = score_one("migrate-016-to-019", WORD_DIFF)
    values = row["config"]["values"]
    assert values["model.cuda_graph_modules"] == ["attn", "moe_router"], values
    assert values.get("model.cuda_graph_scope") is None
    assert not any("scope-and-modules-both" in f for f in row["fatal"]), row["fatal"]


def test_a_list_under_a_dont_label_is_rejected():
    answer = """Keep the 0.16 spelling and turn both checks off:

```python
cfg.model.cuda_graph_impl = "local"
cfg.model.cuda_graph_scope = ["full_iteration"]
cfg.rerun_state_machine.check_for_nan_in_loss = False
cfg.ddp.check_for_nan_in_grad = False
```

DON'T
 * switch to cuda_graph_impl="full_iteration". That value only exists from
   0.18 on; 0.16 asserts "Invalid cuda graph implementation".

AFTER RELAUNCH
Look for "Capture CUDA graph for training!!!".
"""
    row = score_one("diagnose-log-nan-assert", answer)
    assert row["config"]["values"]["model.cuda_graph_impl"] == "local", row["config"]
    assert not any("impl-unknown" in f for f in row["fatal"]), row["fatal"]


LUA = """-- overrides/llama70b.lua: each key becomes a Hydra-style key=value override
local M = {}

M.model = {
  recompute_granularity = "selective",
  recompute_modules     = { "mlp" },
  cuda_graph_impl       = "transformer_engine",
  cuda_graph_scope      = "null",    -- clear the recipe's legacy key
  cuda_graph_modules    = { "attn" },
  use_te_rng_tracker    = true,
}

M.rng = {
  te_rng_tracker = true,
}

return M
"""


def test_a_lua_module_is_read_as_the_config_it_returns():
    values = score_one("recompute-full-with-te", LUA)["config"]["values"]
    assert values["model.cuda_graph_impl"] == "transformer_engine", values
    assert values["model.cuda_graph_modules"] == ["attn"]
    assert values["model.recompute_modules"] == ["mlp"]
    assert values["model.cuda_graph_scope"] is None
    assert values["rng.te_rng_tracker"] is True


def test_a_lua_module_that_keeps_full_recompute_with_te_graphs_fails():
    row = score_one("recompute-full-with-te", LUA.replace('"selective"', '"full"'))
    assert any("full-recompute-needs-full-iteration" in f for f in row["fatal"]), row["fatal"]


def test_an_unquoted_shell_variable_in_a_command_stands_for_no_word_in_particular():
    text = '```bash\nver=${MCORE:+--mcore-version $MCORE}\nskill-tools recommend --json $ver "$CFG"\n```\n'
    (argv, _), = list(invocations(text))
    assert argv == ["recommend", "--json", "$CFG"], argv


def test_a_claim_inside_an_if_clause_is_a_supposition():
    answer = ("Run nccl-tests all_reduce_perf and compare the busbw column, not algbw, with the hardware. "
              "If you have been comparing algbw against the NIC line rate, half of what you expect is "
              "what a healthy fabric shows.\n")
    row = score_one("neg-nccl-bandwidth", answer)
    assert not any("algbw is the number" in f for f in row["fatal"]), row["fatal"]


def test_dismissing_the_confidence_interval_fails_and_deciding_on_it_passes():
    base = ("Run `skill-tools bench --config gpt_small.yaml --json > bench.json`; it excludes warmup and the capture "
            "iteration and reports the median step time per variant with a bootstrap 95% CI of the speedup.\n\n")
    wrong = base + "Take the point estimate: anything >= 1.02x means graphs are faster. The CI columns are informational.\n"
    right = base + "Enable graphs only if the whole CI lies above 1.0; a CI that spans 1.0 means no measurable speedup.\n"
    assert any("the confidence interval dismissed" in f for f in score_one("run-helper-bench", wrong)["fatal"])
    assert not any("confidence interval" in f for f in score_one("run-helper-bench", right)["fatal"])


def test_an_option_for_a_wish_with_its_case_spelled_out_is_an_option():
    answer = """Fixed config (dropless MoE):

```yaml
model:
  cuda_graph_impl: transformer_engine
  cuda_graph_scope: null
  cuda_graph_modules: [moe_router, moe_preprocess]
  use_te_rng_tracker: true
rng:
  te_rng_tracker: true
```

If you actually want the whole expert block in the graph, switch the model to drop-and-pad (`moe_expert_capacity_factor` set, `moe_pad_expert_input_to_capacity: true`) and use `cuda_graph_modules: [moe]`.
"""
    row = score_one("run-helper-validate", answer)
    assert "model.moe_pad_expert_input_to_capacity" not in row["config"]["values"], row["config"]
    assert row["passed"], row["fatal"]


def test_graph_settings_offered_as_the_remedy_on_an_off_topic_task_fail():
    answer = ("Measure with nccl-tests and compare busbw to the fabric.\n\n"
              "If this is a Megatron job, capturing the layers with CUDA graphs removes that: "
              "`--cuda-graph-impl transformer_engine --cuda-graph-modules attn mlp --te-rng-tracker`.\n")
    row = score_one("neg-nccl-bandwidth", answer)
    assert any("no_graph_config" in f for f in row["fatal"]), row["fatal"]
    rejected = score_one("neg-nccl-bandwidth", answer.replace("removes that: ", "is beside the point here; do not add "))
    assert not any("no_graph_config" in f for f in rejected["fatal"]), rejected["fatal"]
