"""The validate/apply/recommend commands: exit codes, JSON shape, bad input, speed of import."""

import json
import subprocess
import sys

import pytest

from skill_tools.cli import main

BAD = "examples/bridge_llama_dense_graph_mistakes.yaml"


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_validate_json_shape_and_exit(capsys, repo, monkeypatch):
    monkeypatch.chdir(repo)
    code, out, _ = run(capsys, "validate", BAD, "--json")
    data = json.loads(out)
    assert code == 1 and data["ok"] is False and {"mcore_version", "era", "findings", "oracle"} <= set(data)
    assert {"rule", "severity", "keys", "message", "fix", "source"} <= set(data["findings"][0])
    assert "scope-unknown" in {f["rule"] for f in data["findings"]}


def test_fixed_example_is_clean(capsys, repo, monkeypatch):
    monkeypatch.chdir(repo)
    assert run(capsys, "validate", "examples/bridge_llama_dense_fixed.yaml")[0] == 0


@pytest.mark.parametrize("content", [b"", b"\x00\x00", b"model:\n  a: [1,\n", b"model:\n  cuda_graph_impl: 3\n",
                                     b"model:\n  cuda_graph_scopes: [attn]\n"])
def test_bad_input_exit_2_without_traceback(capsys, tmp_path, content):
    p = tmp_path / "c.yaml"
    p.write_bytes(content)
    code, out, err = run(capsys, "validate", str(p))
    assert code == 2 and "Traceback" not in err and str(p) in err


def test_apply_writes_and_result_validates(capsys, tmp_path, repo):
    src = tmp_path / "c.yaml"
    src.write_text((repo / BAD).read_text())
    out = tmp_path / "fixed.yaml"
    assert run(capsys, "apply", str(src), "--impl", "transformer_engine", "--scope", "attn,mlp", "--out", str(out))[0] == 0
    assert run(capsys, "validate", str(out))[0] == 0
    assert "# Megatron Bridge ConfigContainer dump" in out.read_text()


def test_apply_refusal_writes_nothing(capsys, tmp_path):
    src = tmp_path / "c.yaml"
    src.write_text("model:\n  num_layers: 2\n")
    out = tmp_path / "o.yaml"
    assert run(capsys, "apply", str(src), "--impl", "transformer_engine", "--scope", "moe", "--out", str(out))[0] == 1
    assert not out.exists()


def test_recommend_json(capsys, repo, monkeypatch):
    monkeypatch.chdir(repo)
    code, out, _ = run(capsys, "recommend", "examples/bridge_moe_dropless.yaml", "--json")
    assert code == 0 and json.loads(out)["scope"] == ["moe_router", "moe_preprocess"]


def test_validate_does_not_import_torch(repo):
    code = ("import sys; from skill_tools.cli import main; main(['validate', 'examples/bridge_llama_dense_fixed.yaml']);"
            "sys.exit(1 if 'torch' in sys.modules or 'megatron' in sys.modules else 0)")
    assert subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True).returncode == 0
