"""A pasted terminal session: the commands advise, what they printed does not; a file shown before
the session changes anything is the user's starting point."""

from __future__ import annotations

from skill_tools.evaluation.extract import extract_config
from skill_tools.evaluation.transcripts import is_transcript, steps

SESSION = """I ran the validator first.

```console
$ cat run/cfg.yaml
model:
  cuda_graph_impl: transformer_engine
  cuda_graph_scope: [moe, moe_router]

$ skill-tools validate run/cfg.yaml --mcore-version 0.19.2
run/cfg.yaml:3: error: [moe-and-moe-router] scope contains both 'moe' and 'moe_router'
    fix: model.cuda_graph_modules=['moe_router'], model.cuda_graph_scope=None
```

1. **`moe` + `moe_router` together is refused.** You have to pick one.
2. **The TE RNG tracker is off.** Turn it on.

```yaml
model:
  cuda_graph_impl: transformer_engine
  cuda_graph_modules: [moe_router, moe_preprocess]
  use_te_rng_tracker: true
rng:
  te_rng_tracker: true
```
"""


def test_a_session_splits_into_commands_and_output():
    body = SESSION.split("```console\n")[1].split("```")[0]
    assert is_transcript(body)
    first, second = steps(body)
    assert first.shows_file and first.before_change and "cuda_graph_scope" in first.output
    assert second.command.startswith("skill-tools validate") and "fix:" in second.output
    assert not is_transcript("$ torchrun pretrain_gpt.py --cuda-graph-impl local \\\n    --cuda-graph-scope full_iteration\n")


def test_output_is_not_advice_and_a_hedge_inside_an_item_opens_no_options():
    ex = extract_config(SESSION, era="current")
    assert ex.config.get("model.cuda_graph_modules") == ["moe_router", "moe_preprocess"]
    assert not ex.config.has("model.cuda_graph_scope") and not ex.config.has("model.mcore_version")
    assert ex.alternatives == []


def test_a_file_shown_after_the_session_changed_it_is_the_result():
    session = ("```console\n$ sed -i 's/none/local/' conf.yaml\n$ cat conf.yaml\nmodel:\n  cuda_graph_impl: local\n"
               "  cuda_graph_scope: [full_iteration]\n```\n")
    cfg = extract_config(session, era="legacy").config
    assert cfg.get("model.cuda_graph_impl") == "local"
