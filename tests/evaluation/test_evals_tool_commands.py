"""The skill-tools commands an answer gives are judged by skill-tools' own parser: a flag or a
subcommand that does not exist fails the answer; a command named without its arguments does not."""

from __future__ import annotations

from skill_tools.cli import refusal
from skill_tools.evaluation.tool_commands import check_tool_commands, invocations

from one_answer import checks_of, score_one

GOOD = """Run the validator first:

```console
$ skill-tools validate run/cfg.yaml --mcore-version 0.19.2 \\
    --json | jq .findings
run/cfg.yaml: megatron-core 0.19.2
skill-tools validate: 2 error(s)
```

Then `skill-tools apply <your-recipe.py> --impl transformer_engine --scope attn` and re-check with
`skill-tools validate` before launching.
"""


def test_commands_are_read_where_code_is_written():
    found = [argv for argv, _ in invocations(GOOD)]
    assert found == [["validate", "run/cfg.yaml", "--mcore-version", "0.19.2", "--json"],
                     ["apply", "PLACEHOLDER", "--impl", "transformer_engine", "--scope", "attn"],
                     ["validate"]]
    assert list(invocations("Use skill-tools validate to check it.")) == []  # prose names, it does not run


def test_the_real_parser_judges():
    assert check_tool_commands(GOOD, refusal).passed
    bad = check_tool_commands("```bash\nskill-tools validate cfg.yaml --autofix\n```", refusal)
    assert bad.fatal and "--autofix" in bad.explanation
    assert check_tool_commands("`skill-tools benchmark cfg.yaml`", refusal).fatal
    assert check_tool_commands("No commands here.", refusal) is None


def test_an_invented_flag_fails_the_answer():
    answer = ("The scope `[moe, moe_router]` is refused (moe and moe_router never together) and the TE RNG "
              "tracker is off. Check it with:\n\n```bash\nskill-tools validate cfg.yaml --mcore-version 0.19.2 "
              "--fix-in-place\n```\n\nFixed config:\n\n```yaml\nmodel:\n  cuda_graph_impl: transformer_engine\n"
              "  cuda_graph_modules: [moe_router, moe_preprocess]\n  use_te_rng_tracker: true\nrng:\n"
              "  te_rng_tracker: true\n```\n")
    row = score_one("run-helper-validate", answer)
    (check,) = checks_of(row, "tool_commands")
    assert not check["passed"] and not row["passed"]
    fixed = score_one("run-helper-validate", answer.replace(" --fix-in-place", " --json"))
    assert checks_of(fixed, "tool_commands")[0]["passed"] and fixed["passed"]


def test_a_diagnosis_that_writes_a_value_megatron_refuses_fails():
    """rl-colocated-eager-decode asks for no config; a fix it writes is still judged by the rules."""
    base = ("Generation stayed on the eager decode path: nothing was captured, the managers never existed at model "
            "init. Upgrade NeMo-RL, confirm `built cuda graph` in the log, set --rl-persist-cuda-graphs only when "
            "graphs are built, and keep NCCL_GRAPH_REGISTER=0 with KV-cache offload.\n\n```bash\n"
            "--cuda-graph-impl local --inference-cuda-graph-scope block\n--rl-kv-cache-management-mode=offload\n")
    wrong = score_one("rl-colocated-eager-decode", base + "--no-rl-persist-cuda-graphs\n```\n")
    (check,) = checks_of(wrong, "written_settings")
    assert not check["passed"] and "rl-offload-needs-persisted-graphs" in check["explanation"] and not wrong["passed"]
    right = score_one("rl-colocated-eager-decode", base + "--rl-persist-cuda-graphs\n```\n")
    assert checks_of(right, "written_settings")[0]["passed"] and right["passed"]


def test_commands_listed_in_a_task_runner_file_are_judged():
    """A Taskfile or CI job lists commands as YAML items; a flag skill-tools does not have fails there too."""
    taskfile = ("version: '3'\ntasks:\n  bench:\n    cmds:\n      - skill-tools bench --config cfg.yaml --repeat 5 --json\n"
                "  check:\n    script: skill-tools validate cfg.yaml --mcore-version 0.19.2\n")
    argvs = [argv for argv, _ in invocations(taskfile)]
    assert argvs == [["bench", "--config", "cfg.yaml", "--repeat", "5", "--json"],
                     ["validate", "cfg.yaml", "--mcore-version", "0.19.2"]]
    assert not list(invocations("steps:\n  - name: skill-tools is great\n  - echo skill-tools bench\n"))


def test_a_command_on_its_own_indented_line_is_judged():
    """An unfenced command under a list item (Markdown indented code) is a command line too."""
    from skill_tools.cli import refusal
    from skill_tools.evaluation.tool_commands import check_tool_commands

    bad = ("1. Sammenlign ved like former:\n\n   skill-tools bench --mode inference --compare-padded --out paritet/\n\n"
           "   Den feiler bare hvis et token avviker.\n")
    assert check_tool_commands(bad, refusal).score == 0.0
    good = "1. Run it:\n\n   skill-tools bench --mode inference --out paritet/\n"
    assert check_tool_commands(good, refusal).score == 1.0
    prose = "skill-tools bench compares eager and graphed runs on your model.\n"
    assert check_tool_commands(prose, refusal) is None


def test_a_command_held_in_a_string_of_code_is_read():
    tasks_py = ('from invoke import task\n\nCFG = "configs/qwen3_30b_a3b.yaml"\n\n\n@task\ndef tune(c):\n'
                '    c.run(f"skill-tools recommend {CFG} --json", pty=True)\n'
                '    c.run(f"skill-tools apply {CFG} --recommended --out out/cfg.yaml")\n'
                "    subprocess.run('skill-tools validate out/cfg.yaml --json'.split())\n")
    found = [argv for argv, _ in invocations(tasks_py)]
    assert found == [["recommend", "PLACEHOLDER", "--json"], ["apply", "PLACEHOLDER", "--recommended", "--out", "out/cfg.yaml"],
                     ["validate", "out/cfg.yaml", "--json"]]
    check = check_tool_commands(tasks_py, refusal)
    assert check.score == 0.0 and "--recommended" in check.explanation
    assert list(invocations('print("run skill-tools later")')) == []  # a sentence in a string is no command


def test_a_command_behind_makefile_variables_is_read_as_the_one_it_runs():
    makefile = ("CFG ?= conf/moe.yaml\nMCORE ?= 0.19.2\nSKILL_TOOLS ?= skill-tools\n\n"
                "check:\n\t$(SKILL_TOOLS) validate $(CFG) --mcore-version $(MCORE) --json > out.json\n"
                "fix:\n\t${SKILL_TOOLS} validate $(CFG) --mcore-version $(MCORE) --fix\n")
    assert [argv for argv, _ in invocations(makefile)] == [
        ["validate", "conf/moe.yaml", "--mcore-version", "0.19.2", "--json"],
        ["validate", "conf/moe.yaml", "--mcore-version", "0.19.2", "--fix"]]
    bad = check_tool_commands(makefile, refusal)
    assert bad is not None and bad.score == 0.0 and "--fix" in bad.explanation
    good = check_tool_commands(makefile.replace(" --fix", " --oracle"), refusal)
    assert good is not None and good.score == 1.0, good.explanation
    # a variable it does not assign stands for a value; a file without the program is left alone
    assert [a for a, _ in invocations("TOOL=skill-tools\n$TOOL validate $OTHER --json\n")] == [
        ["validate", "PLACEHOLDER", "--json"]]
    assert list(invocations("CFG=a.yaml\necho $CFG\n")) == []


def test_bench_refuses_a_training_capture_without_an_eager_step():
    # the command refuses it when run (exit 2, before any work), and the scorer hears the same refusal
    from skill_tools.cli import main

    assert main(["bench", "--warmup", "0", "--dry-run"]) == 2
    assert "at least 1 eager step" in (refusal(["bench", "--warmup", "0"]) or "")
    assert refusal(["bench", "--warmup", "1"]) is None
    assert refusal(["bench", "--mode", "inference", "--warmup", "0"]) is None  # warm-up generations: optional
    bad = check_tool_commands("```bash\nskill-tools bench --workload dense --warmup 0\n```\n", refusal)
    assert bad is not None and bad.score == 0.0 and "eager step" in bad.explanation
