"""Hostile inputs for every command keep the contract (tests/fuzz_hostile.py), and the issue's
reproducers stay fixed.

A few hundred generated cases here (SKILL_TOOLS_FUZZ_EXAMPLES scales them);
benchmarks/bench_fuzz_hostile.py runs the same generators at 20,000+ per command and reports.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fuzz_hostile as H
from fuzz_inputs import REPO, run_cli

FUZZ = settings(max_examples=int(os.environ.get("SKILL_TOOLS_FUZZ_EXAMPLES", "60")) // 2 or 1, deadline=None,
                suppress_health_check=list(HealthCheck), derandomize=True, database=None)
SCRATCH = Path(tempfile.mkdtemp(prefix="skill-tools-hostile-"))
CONFIG_COMMANDS = ["validate", "apply", "apply-in-place", "apply-hydra", "recommend"]
FILE_COMMANDS = CONFIG_COMMANDS + ["logs", "precheck", "bench", "evals"]


def _run(command: str, data: bytes | str, suffix: str):
    folder = Path(tempfile.mkdtemp(dir=SCRATCH))
    path = folder / f"input{suffix}"
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass"))
    try:
        return H.check_contract(H.command_lines(str(path), folder)[command], folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@FUZZ
@given(st.one_of(H.yaml_tag_texts(), H.python_literal_texts(), H.float_limit_texts(), H.hydra_override_texts()),
       st.sampled_from(CONFIG_COMMANDS))
def test_hostile_configs(case, command):
    _run(command, *case)


@FUZZ
@given(H.encoded_files(), st.sampled_from(FILE_COMMANDS))
def test_encodings(case, command):
    _run(command, *case)


@FUZZ
@given(H.log_float_limits())
def test_logs_at_float_limits(text):
    _run("logs", text, ".log")


@pytest.mark.parametrize("kind", H.SPECIAL)
@pytest.mark.parametrize("command", FILE_COMMANDS)
def test_special_paths(kind, command):
    folder = Path(tempfile.mkdtemp(dir=SCRATCH))
    try:
        path = H.special_path(kind, folder)
        out = H.check_contract(H.command_lines(path, folder)[command], folder)
        assert out.rc == 2 or kind == "unicode", (kind, command, out.stderr)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# the reproducers
# --------------------------------------------------------------------------------------------


def test_in_place_python_recipe_keeps_everything_else(tmp_path):
    src = REPO / "examples" / "python_assignments_local_scoped.py"
    path = tmp_path / "recipe.py"
    shutil.copy(src, path)
    out = run_cli(["apply", str(path), "--impl", "full_iteration", "--in-place"])
    assert out.rc == 0, out.stderr
    before, after = src.read_text().splitlines(), path.read_text().splitlines()
    kept = [ln for ln in before if "cuda_graph" not in ln]
    assert [ln for ln in after if ln in kept] == kept  # every other line, in order
    assert '    cfg.model.cuda_graph_impl = "full_iteration"' in after
    assert run_cli(["validate", str(path)]).rc in (0, 1)


@pytest.mark.parametrize("name", ["bridge_llama_dense_fixed.yaml", "bridge_moe_dropless.yaml",
                                  "hydra_overrides_moe_scopes.txt", "run_script_perf_flags.txt",
                                  "python_assignments_local_scoped.py"])
def test_in_place_keeps_comments_and_other_lines(tmp_path, name):
    path = tmp_path / name
    shutil.copy(REPO / "examples" / name, path)
    original = path.read_text()
    out = run_cli(["apply", str(path), "--impl", "transformer_engine", "--scope", "attn", "--in-place"])
    assert out.rc in (0, 1), out.stderr
    text = path.read_text()
    graphish = ("cuda_graph", "rng", "nan_in", "te_rng")
    for line in original.splitlines():
        if line.strip() and not any(g in line for g in graphish) and not line.strip().startswith("-"):
            assert line in text, line


def test_json_recipe_in_place_and_keyword_call(tmp_path):
    path = tmp_path / "c.json"
    path.write_text('{\n  "model": {\n    "num_layers": 2,\n    "cuda_graph_impl": "local"\n  }\n}\n')
    assert run_cli(["apply", str(path), "--impl", "full_iteration", "--in-place"]).rc == 0
    text = path.read_text()
    assert text.startswith('{\n  "model": {\n    "num_layers": 2,\n    "cuda_graph_impl": "full_iteration"')
    recipe = tmp_path / "r.py"
    recipe.write_text("from x import GPTModelProvider\n\n\ndef build():\n    # keep\n"
                      "    return GPTModelProvider(num_layers=2, cuda_graph_impl='local')\n")
    out = run_cli(["apply", str(recipe), "--impl", "transformer_engine", "--scope", "attn", "--in-place"])
    assert out.rc == 0, out.stderr
    assert "# keep" in recipe.read_text() and "cuda_graph_impl='transformer_engine'" in recipe.read_text()


def test_in_place_into_another_format_is_refused(tmp_path):
    path = tmp_path / "c.yaml"
    shutil.copy(REPO / "examples" / "bridge_llama_dense_fixed.yaml", path)
    before = path.read_bytes()
    out = run_cli(["apply", str(path), "--impl", "full_iteration", "--format", "hydra", "--in-place"])
    assert out.rc == 2 and "in place" in out.stderr and path.read_bytes() == before


def test_dev_zero_is_refused_fast():
    out = run_cli(["validate", "/dev/zero"])
    assert out.rc == 2 and "more than 5 MB" in out.stderr


@pytest.mark.parametrize("text,needle", [
    ("model:\n  num_layers: !!int ''\n", "cannot be read as 'int'"),
    ("model:\n  cuda_graph_impl: !!timestamp moe\n", "timestamp"),
    ("model:\n  num_layers: 2\n  num_layers: 3\n", "duplicate key"),
])
def test_yaml_tag_and_duplicate_reproducers(tmp_path, text, needle):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    out = run_cli(["validate", str(path)])
    assert out.rc == 2 and needle in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_python_dict_with_list_key(tmp_path):
    path = tmp_path / "c.py"
    path.write_text("cfg.model.cuda_graph_impl = 'local'\ncfg.model.x = {[1]: 2}\n")
    assert run_cli(["validate", str(path)]).rc in (0, 1)


def test_step_times_at_the_float_limit(tmp_path):
    path = tmp_path / "big.log"
    path.write_text("".join(f" iteration {i:>8}/      10 | elapsed time per iteration (ms): 1e308 | lm loss: 1.0 |\n"
                            for i in range(1, 11)))
    assert run_cli(["logs", str(path)]).rc in (0, 1)


def test_long_path_and_api_text_over_255_chars(tmp_path):
    import skill_tools

    out = run_cli(["validate", str(tmp_path / ("a" * 300 + ".yaml"))])
    assert out.rc == 2 and "too long" in out.stderr
    assert skill_tools.validate("model.cuda_graph_impl=" + "x" * 300 + " model.num_layers=2").source == "<text>"


@pytest.mark.parametrize("command", [["precheck", "--results"], ["bench", "--rebuild"]])
def test_binary_results(tmp_path, command):
    path = tmp_path / "r.json"
    path.write_bytes(bytes(range(256)) * 4)
    out = run_cli([*command, str(path)])
    assert out.rc == 2 and "binary" in out.stderr


def test_lone_surrogate_through_apply_hydra_out(tmp_path):
    src = tmp_path / "c.json"
    src.write_text('{"model": {"cuda_graph_impl": "local", "x": "\\ud800"}}')
    out = run_cli(["apply", str(src), "--impl", "local", "--format", "hydra", "--out", str(tmp_path / "o.txt")])
    assert out.rc == 2 and "surrogate" in out.stderr and not (tmp_path / "o.txt").exists()


def test_utf16_is_decoded_and_bom_accepted(tmp_path):
    u16 = tmp_path / "c.yaml"
    u16.write_bytes("model:\n  cuda_graph_impl: local\n".encode("utf-16"))
    assert "binary" not in run_cli(["validate", str(u16)]).stderr
    bom = tmp_path / "b.yaml"
    bom.write_bytes(b"\xef\xbb\xbf" + b"model:\n  cuda_graph_impl: transformer_engine\n")
    out = run_cli(["apply", str(bom), "--impl", "full_iteration", "--in-place"])
    assert out.rc == 0 and bom.read_bytes().startswith(b"\xef\xbb\xbfmodel:\n  cuda_graph_impl: full_iteration")


def test_recommend_stays_the_api_after_the_submodule_import():
    import importlib

    import skill_tools

    importlib.import_module("skill_tools.recommend")
    assert callable(skill_tools.recommend)
    assert skill_tools.recommend("model.num_layers=2") is not None


def test_multiline_quoted_flag_round_trips(tmp_path):
    path = tmp_path / "train.sh"
    path.write_text('torchrun pretrain_gpt.py --num-layers 2 --wandb-exp-name "a\nb" --cuda-graph-impl local\n')
    out = run_cli(["apply", str(path), "--impl", "transformer_engine", "--scope", "attn", "--out", str(tmp_path / "o.sh")])
    assert out.rc == 0, out.stderr
    assert run_cli(["validate", str(tmp_path / "o.sh")]).rc in (0, 1)


@pytest.mark.parametrize("argv,needle", [
    (["logs", str(REPO / "examples" / "bridge_llama_dense_fixed.yaml")], "not a training log"),
    (["validate", "model.cuda_graph_impl=local"], "looks like a Hydra override"),
])
def test_messages(argv, needle):
    out = run_cli(argv)
    assert out.rc == 2 and needle in out.stderr


@pytest.mark.parametrize("command", ["validate", "apply", "recommend", "logs", "precheck", "bench", "evals", "lint", "card"])
def test_help_shows_an_example(command, capsys):
    from skill_tools.cli import main

    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert "examples:\n  skill-tools " + command in capsys.readouterr().out


@FUZZ
@given(st.one_of(H.yaml_tag_texts(), H.python_literal_texts(), H.float_limit_texts(), H.hydra_override_texts(),
                 __import__("fuzz_inputs").config_texts()),
       st.sampled_from([None, "yaml", "json", "python", "hydra", "run_script", "megatron_lm"]))
def test_apply_writes_only_what_validate_reads(case, fmt):
    """Round trip: whatever apply writes (in any output format), its own validate reads."""
    text, suffix = case
    folder = Path(tempfile.mkdtemp(dir=SCRATCH))
    try:
        src = folder / f"in{suffix}"
        src.write_text(text, encoding="utf-8", errors="surrogatepass")
        out = folder / ("out" + ({"yaml": ".yaml", "json": ".json", "python": ".py"}.get(fmt or "", "") or suffix))
        applied = run_cli(["apply", str(src), "--impl", "transformer_engine", "--scope", "attn",
                           *(["--format", fmt] if fmt else []), "--out", str(out)])
        if applied.rc == 0:
            fmt_in = ["--input-format", fmt] if fmt else []
            back = run_cli(["validate", str(out), *fmt_in])
            assert back.rc in (0, 1), (out.read_text(), back.stderr)
        else:
            assert not out.exists()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_python_new_settings_follow_the_graph_settings_in_each_recipe(tmp_path):
    """Upstream recipes (Bridge v0.6.0 llama3.py) hold one function per size, each with its own
    graph settings, and assign container fields (cfg.env_vars) after them."""
    fn = ("def {name}():\n    cfg = make()\n    # CUDA Graph\n    cfg.model.cuda_graph_impl = \"none\"\n"
          "    cfg.model.cuda_graph_warmup_steps = 3\n\n    cfg.env_vars = {{}}\n    return cfg\n")
    path = tmp_path / "recipes.py"
    path.write_text(fn.format(name="small") + "\n\n" + fn.format(name="large"))
    out = run_cli(["apply", str(path), "--impl", "full_iteration", "--in-place"])
    assert out.rc == 0, out.stderr
    text = path.read_text()
    assert "cfg.cuda_graph" not in text and "cfg.rng" in text
    for block in text.split("\n\n\n"):
        assert block.index("cuda_graph_warmup_steps = 3\n    cfg.") < block.index("cfg.env_vars")
        assert "cfg.rerun_state_machine.check_for_nan_in_loss = False" in block


@pytest.mark.parametrize("argv", [["validate", "--json", "no-such.yaml"], ["apply", "--json", "x=1", "--impl", "local"],
                                  ["logs", "--json", "no-such.log"], ["validate", "--json", "--input-format", "bad", "x"],
                                  ["precheck", "--json", "--results", "/dev/zero"]])
def test_json_errors_follow_the_published_schema(argv):
    import json

    import jsonschema

    schema = json.loads((REPO / "skill_tools" / "schemas" / "error.schema.json").read_text())
    out = run_cli(argv)
    assert out.rc == 2 and len([ln for ln in out.stderr.splitlines() if "error:" in ln]) == 1
    doc = json.loads(out.stdout)
    jsonschema.validate(doc, schema)
    assert doc["error"]["command"] == argv[0] and doc["error"]["message"] in out.stderr


def test_found_by_the_long_fuzz_run(tmp_path):
    """benchmarks/results/2026-12-03-fuzz-hostile.json: a word where a weight-shard count goes
    (TypeError in the rules), and a 5000-digit number as a results file (ValueError)."""
    script = tmp_path / "train.sh"
    script.write_text("torchrun pretrain_gpt.py --tensor-parallel-num-weight-shards x --cuda-graph-impl local\n")
    assert run_cli(["recommend", str(script)]).rc in (0, 1, 2)
    assert run_cli(["apply", str(script), "--impl", "full_iteration"]).rc in (0, 1, 2)
    results = tmp_path / "r.json"
    results.write_text("9" * 5000)
    for argv in (["precheck", "--results", str(results)], ["bench", "--rebuild", str(results)]):
        out = run_cli(argv)
        assert out.rc == 2 and "digits" in out.stderr
