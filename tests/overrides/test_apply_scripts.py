"""``apply`` on a launch script changes the graph flags and nothing else.

Inputs: the shipped examples (one flag block after ``torchrun ... pretrain_gpt.py``, a
run_script.py line, a Hydra override file) and a launch script written here in the layout of
Megatron-LM's own example scripts (flags in bash arrays with comments inside them, the command
line expanding ``${ARRAY[@]}``, an ``srun``/``torchrun`` launcher with its own ``--nnodes``-style
options, quoted values and ``$(...)``). Every line of the input that carries no graph flag must
come out unchanged and in order, the result must still be valid bash, read back to the requested
graph settings, and pass the upstream parser of the chosen version.
"""

from __future__ import annotations

import difflib
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import megatron_lm_parser

from skill_tools import api
from skill_tools.config import cli_tables
from skill_tools.config.era import era_for, read_intent
from skill_tools.config.readers import read_text
from skill_tools.config.render import render_report
from skill_tools.config.shell_edit import groups, scan, splice
from skill_tools.overrides import REMOVE, override_values

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = [REPO / "examples" / n for n in ("megatron_lm_full_iteration_legacy.sh", "megatron_lm_inference_block.sh",
                                             "run_script_perf_flags.txt", "hydra_overrides_moe_scopes.txt")]
REQUESTS = [("full_iteration", None), ("transformer_engine", "attn"), ("transformer_engine", "attn,mlp"),
            ("local", None), ("none", None), ("local", "full_iteration")]
GRAPH_WORDS = ("cuda-graph", "cuda_graph", "rng-tracker", "rng_tracker", "check-for-nan", "check_for_nan")


def array_style_script() -> str:
    """A launch script in the layout of Megatron-LM's examples, written for this test."""
    return "\n".join([
        "#!/usr/bin/env bash",
        "# pretraining launcher: 2 nodes, bf16, selective recompute",
        "set -euo pipefail",
        'RUN_DIR="$(pwd)/runs/$(date +%Y%m%d)"',
        "LAUNCH=(",
        "  --nnodes 2 --nproc_per_node 8   # torchrun's own options",
        "  --rdzv_backend c10d",
        ")",
        "MODEL=(",
        "  --num-layers 24",
        "  --hidden-size 2048 --num-attention-heads 16   # heads of 128",
        "  --seq-length 4096 --max-position-embeddings 4096",
        ")",
        "TRAIN=(",
        "  --micro-batch-size 2",
        "  --global-batch-size 256",
        "  --recompute-granularity full --recompute-method block --recompute-num-layers 2",
        "  --bf16",
        "  --cuda-graph-impl transformer_engine   # graphs per layer",
        "  --te-rng-tracker",
        ")",
        "LOGS=(",
        '  --log-interval 10 --save "${RUN_DIR}/ckpt"',
        ")",
        "",
        "CUDA_DEVICE_MAX_CONNECTIONS=1 torchrun \"${LAUNCH[@]}\" pretrain_gpt.py \\",
        "\t${MODEL[@]} \\",
        "\t${TRAIN[@]} \\",
        "\t${LOGS[@]}",
        'echo "done: ${RUN_DIR}"',
        "",
    ])


def _graph_line(line: str) -> bool:
    return any(w in line for w in GRAPH_WORDS)


def assert_only_graph_lines_changed(before: str, after: str) -> None:
    """Every line of ``before`` without a graph flag is in ``after``, unchanged and in order;
    every changed or added line carries a graph flag (or is the line whose ``\\`` now
    continues into added flags)."""
    a, b = before.splitlines(), after.splitlines()
    sm = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        for line in a[i1:i2]:
            if _graph_line(line):
                continue
            # an unrelated line may only gain a trailing continuation (flags appended after it)
            assert any(new.rstrip() == line.rstrip() + " \\" or new == line for new in b[j1:j2]), \
                f"unrelated line changed or lost: {line!r}\n--- after ---\n{after}"
        for line in b[j1:j2]:
            assert _graph_line(line) or line.rstrip().endswith("\\") and line.rstrip()[:-1].rstrip() in [
                x.rstrip() for x in a], f"unexpected new line {line!r}\n--- after ---\n{after}"


def bash_syntax_ok(text: str, tmp_path: Path) -> None:
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    script = tmp_path / "launch.sh"
    script.write_text(text)
    proc = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr + "\n" + text


def _apply(text: str, fmt: str | None, impl: str, scope: str | None, version: str) -> tuple[str, object]:
    cfg = read_text(text, fmt, source="launch.sh")
    plan = api.apply(cfg, impl, scope, mcore_version=version)
    if not plan.ok:
        pytest.skip(f"{impl}/{scope} is refused for this input at {version} (not a rendering case)")
    era = plan.era
    always = ("model.cuda_graph_impl", "model." + era.modules_key)
    changes = {k: v for k, v in plan.changes.items()
               if k in always or cfg.get(k, REMOVE if v != REMOVE else None) != v}
    values = override_values(changes)
    rendered = render_report(values, cfg.fmt, era)
    return splice(text, cfg.fmt, values, rendered.parts, era), plan


def _intent_after(text: str, fmt: str, version: str):
    era = era_for(version)
    return read_intent(read_text(text, fmt, source="after"), era=era)


@pytest.mark.parametrize("version", ["0.16.1", "0.19.2"])
@pytest.mark.parametrize("impl,scope", REQUESTS)
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_keep_everything_but_the_graph_flags(path, impl, scope, version, tmp_path):
    before = path.read_text()
    after, plan = _apply(before, None, impl, scope, version)
    assert_only_graph_lines_changed(before, after)
    fmt = read_text(before, None).fmt
    if fmt != "hydra":
        bash_syntax_ok(after, tmp_path)
    got = _intent_after(after, fmt, version)
    assert (got.impl, tuple(got.modules)) == (plan.intent.impl, tuple(plan.intent.modules)), after
    # applying the same request again changes nothing
    again, _ = _apply(after, fmt, impl, scope, version)
    assert again == after



@pytest.mark.parametrize("version", ["0.16.1", "0.19.2"])
@pytest.mark.parametrize("impl,scope", REQUESTS)
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_edited_scripts_pass_the_real_parsers(path, impl, scope, version):
    """What the edited script passes its tool: Megatron-LM flags through the tag's parser (and the
    installed 0.19 wheel's own parser), run_script.py flags through Bridge's, every Hydra override
    through hydra-core's grammar as a single value (no sweep)."""
    before = path.read_text()
    after, _ = _apply(before, None, impl, scope, version)
    cfg = read_text(after, None, source=path.name)
    if cfg.fmt == "megatron_lm":
        argv = [t for t, _ in cfg.argv]
        assert not cli_tables.parse(cli_tables.megatron_lm(version), argv)
        real = megatron_lm_parser()[0] if version >= "0.19" else None
        if real is not None:
            _, unknown = real.parse_known_args(argv)
            assert not unknown, unknown
    elif cfg.fmt == "run_script":
        flags = [t for t, _ in cfg.argv]
        assert not cli_tables.parse(cli_tables.run_script(), flags), flags
    overrides = [t for t, _ in cfg.overrides]
    if overrides:
        parser_mod = pytest.importorskip("hydra.core.override_parser.overrides_parser",
                                         reason="hydra-core is not installed (pip install -e '.[dev]')")
        hydra = parser_mod.OverridesParser.create()
        for line in overrides:
            assert not hydra.parse_override(line).is_sweep_override(), line


@pytest.mark.parametrize("version", ["0.16.1", "0.19.2"])
@pytest.mark.parametrize("impl,scope", REQUESTS)
def test_array_style_script_keeps_launcher_comments_and_arrays(impl, scope, version, tmp_path):
    before = array_style_script()
    after, plan = _apply(before, None, impl, scope, version)
    assert_only_graph_lines_changed(before, after)
    bash_syntax_ok(after, tmp_path)
    for kept in ('CUDA_DEVICE_MAX_CONNECTIONS=1 torchrun "${LAUNCH[@]}" pretrain_gpt.py \\',
                 "  --recompute-granularity full --recompute-method block --recompute-num-layers 2",
                 "  --hidden-size 2048 --num-attention-heads 16   # heads of 128", 'echo "done: ${RUN_DIR}"'):
        assert kept in after.splitlines()
    got = _intent_after(after, "megatron_lm", version)
    assert (got.impl, tuple(got.modules)) == (plan.intent.impl, tuple(plan.intent.modules)), after
    # what the command line receives: the arrays expanded, as the reader sees them
    cfg = read_text(after, "megatron_lm")
    argv = [t for t, _ in cfg.argv]
    problems = cli_tables.parse(cli_tables.megatron_lm(version), argv)
    assert not problems, [p.message for p in problems]


def test_the_issue_case_keeps_torchrun_comments_and_recompute():
    """`apply --in-place` on the legacy example at 0.19 once dropped torchrun and the comments
    and turned --recompute-granularity full into --recompute-activations full."""
    before = (REPO / "examples" / "megatron_lm_full_iteration_legacy.sh").read_text()
    after, _ = _apply(before, None, "full_iteration", None, "0.19.2")
    assert "torchrun --nproc-per-node 8 pretrain_gpt.py \\" in after
    assert after.startswith("# Megatron-LM flags copied from an older recipe")
    assert "--recompute-granularity full --recompute-method uniform --recompute-num-layers 1 \\" in after
    assert "--recompute-activations" not in after
    assert "--cuda-graph-impl full_iteration" in after and "--cuda-graph-scope" not in after


def test_removing_the_last_flag_does_not_leave_a_dangling_continuation(tmp_path):
    before = "torchrun pretrain_gpt.py \\\n  --num-layers 2 \\\n  --cuda-graph-scope attn\necho next\n"
    after = splice(before, "megatron_lm", {"model.cuda_graph_scope": None}, [], era_for("0.19.2"))
    assert after == "torchrun pretrain_gpt.py \\\n  --num-layers 2\necho next\n"
    bash_syntax_ok(after, tmp_path)
    mid = "torchrun pretrain_gpt.py \\\n  --cuda-graph-scope attn \\\n  --num-layers 2\n"
    assert splice(mid, "megatron_lm", {"model.cuda_graph_scope": None}, [], era_for("0.19.2")) == \
        "torchrun pretrain_gpt.py \\\n  --num-layers 2\n"
    inline = "torchrun pretrain_gpt.py --cuda-graph-scope attn --num-layers 2\n"
    assert splice(inline, "megatron_lm", {"model.cuda_graph_scope": None}, [], era_for("0.19.2")) == \
        "torchrun pretrain_gpt.py --num-layers 2\n"


def test_flags_are_appended_in_the_files_own_style():
    one_line = "python pretrain_gpt.py --num-layers 2 --bf16\n"
    after, _ = _apply(one_line, None, "transformer_engine", "attn", "0.19.2")
    assert after.startswith("python pretrain_gpt.py --num-layers 2 --bf16 --cuda-graph-impl transformer_engine")
    assert after.count("\n") == 1


def test_scan_spans_cover_quotes_arrays_and_substitutions():
    text = 'A=( --x "a b" # c\n) ; torchrun $(echo 1) ${A[@]} --y=\'q r\'\n'
    words = scan(text)
    assert [w.value for w in words if w.kind == "word"] == ["A=", "--x", "a b", "torchrun", "$(echo 1)", "${A[@]}", "--y=q r"]
    for w in words:
        assert text[w.start:w.end] == w.raw
    found = groups(words, "megatron_lm", era_for("0.19.2"))
    assert [(g.option, len(g.words)) for g in found] == [("--x", 2), ("--y", 1)]


def test_flags_inside_a_string_variable_are_read_and_reported():
    """``options="..."`` then ``pretrain.py ${options}``: the reader expands it; apply cannot edit
    inside the string, so it appends to the command and says where the old flag is."""
    from skill_tools.config.shell_edit import flags_in_strings

    text = 'opts=" --num-layers 2 \\\n  --cuda-graph-impl local"\n\npython pretrain_mamba.py ${opts}\n'
    cfg = read_text(text, "megatron_lm")
    assert cfg.get("model.cuda_graph_impl") == "local" and cfg.get("model.num_layers") == 2
    after, _ = _apply(text, "megatron_lm", "transformer_engine", "attn", "0.19.2")
    assert after.startswith(text.rstrip("\n").rsplit("\n", 1)[0])  # everything before the command kept
    assert after.rstrip("\n").endswith("${opts} --cuda-graph-impl transformer_engine --cuda-graph-modules attn --te-rng-tracker")
    era = era_for("0.19.2")
    assert flags_in_strings(text, "megatron_lm", {"model.cuda_graph_impl": "transformer_engine"}, era) == [("--cuda-graph-impl", 1)]
