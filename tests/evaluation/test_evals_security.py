"""Answers are untrusted: nothing from an answer is executed, imported or evaluated.

Each test plants a canary path that an executed payload would create (or read) and checks it
never appears, and that the attempt is a finding with a zero score.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from skill_tools.cli import main
from skill_tools.evaluation.extract import MAX_ANSWER_CHARS, extract_config
from skill_tools.evaluation.score import score_all
from skill_tools.evaluation.tasks import load_answers, load_tasks

F = "```"
EVALS = Path(__file__).resolve().parents[2] / "evals" / "evals.json"


def payloads(canary: Path) -> list[str]:
    c = str(canary)
    return [
        f"{F}python\n__import__('os').system('touch {c}')\ncfg.model.cuda_graph_impl = 'local'\n{F}",
        f"{F}python\nimport subprocess\nsubprocess.run(['touch', '{c}'])\n{F}",
        f"{F}python\ncfg.model.cuda_graph_impl = eval(\"__import__('os').system('touch {c}')\")\n{F}",
        f"{F}python\ncfg.model.x = ().__class__.__bases__[0].__subclasses__()\n{F}",
        f"{F}yaml\nmodel: !!python/object/apply:os.system ['touch {c}']\n{F}",
        f"{F}yaml\nmodel: !!python/name:os.system\n{F}",
        f"{F}bash\npython -c \"__import__('os').system('touch {c}')\" --cuda-graph-impl local\n{F}",
        f"Set `cfg.model.cuda_graph_impl = __import__('os').system('touch {c}')`.",
    ]


@pytest.mark.parametrize("index", range(8))
def test_payload_is_a_security_finding_and_never_runs(tmp_path, index):
    canary = tmp_path / "CANARY"
    ex = extract_config(payloads(canary)[index])
    assert not canary.exists()
    assert ex.unsafe, [f.to_dict() for f in ex.findings]
    assert any(f.kind == "security" for f in ex.findings)


def test_scoring_unsafe_answers_gives_zero_and_no_side_effects(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    canary = tmp_path / "CANARY"
    answers = tmp_path / "a.jsonl"
    with answers.open("w") as fh:
        for p in payloads(canary):
            fh.write(json.dumps({"id": "dense-te-scoped-bringup", "condition": "with_skill", "answer": p}) + "\n")
    report = score_all(load_tasks(EVALS), load_answers(answers))
    assert not canary.exists()
    for a in report["answers"]:
        assert a["unsafe"] is True
        checks = [c for b in a["behaviors"] for c in b["checks"] if c["type"] in ("graph", "config", "validates", "executes")]
        assert checks and all(c["score"] == 0.0 for c in checks)


def test_yaml_alias_bomb_is_not_expanded():
    bomb = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
        f"{n}: &{n} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n" for p, n in zip("abcdefgh", "bcdefghi"))
    ex = extract_config(f"{F}yaml\n{bomb}{F}")
    assert ex.unsafe and any("alias" in f.message for f in ex.findings)


def test_huge_and_deep_inputs_are_limited():
    huge = "x" * (MAX_ANSWER_CHARS + 10)
    ex = extract_config(huge)
    assert any(f.kind == "limit" for f in ex.findings)
    deep = extract_config(f"{F}json\n" + "[" * 5000 + "]" * 5000 + f"\n{F}")
    assert any(f.kind == "limit" and "nests" in f.message for f in deep.findings)
    sys.setrecursionlimit(sys.getrecursionlimit())  # nothing above may have recursed out


def test_path_tricks_in_answers_file(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("cfg.model.cuda_graph_impl = 'local'\nTOP SECRET CANARY\n")
    folder = tmp_path / "answers"
    folder.mkdir()
    (folder / "link.txt").symlink_to(secret)
    (folder / "ok.txt").write_text("Profile first.")
    rows = [
        {"id": "../../etc/passwd", "answer": "x"},
        {"id": "a/b", "answer": "x"},
        {"id": "dense-te-scoped-bringup", "answer_file": str(secret)},
        {"id": "dense-te-scoped-bringup", "answer_file": "../secret.txt"},
        {"id": "dense-te-scoped-bringup", "answer_file": "link.txt"},
        {"id": "dense-te-scoped-bringup", "answer_file": "ok.txt"},
    ]
    path = folder / "a.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    records = load_answers(path)
    assert [r.rejected for r in records] == [True, True, True, True, True, False]
    assert all("TOP SECRET" not in r.answer for r in records)
    assert records[-1].answer == "Profile first."
    report = score_all(load_tasks(EVALS), records)
    assert [a["score"] for a in report["answers"][:5]] == [0.0] * 5


def test_cli_never_writes_files_named_by_answers(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    answers = tmp_path / "a.jsonl"
    answers.write_text(json.dumps({"id": "..", "answer": f"{F}python\nopen('PWNED','w')\n{F}"}) + "\n"
                       + json.dumps({"id": "dense-te-scoped-bringup", "answer": f"{F}python\nopen('PWNED','w')\n{F}"}) + "\n")
    before = set(tmp_path.iterdir())
    rc = main(["evals", "score", "--answers", str(answers), "--evals", str(EVALS)])
    assert rc == 1
    assert set(tmp_path.iterdir()) == before


def test_a_training_launcher_wrapper_is_read_and_other_subprocess_calls_are_still_refused():
    from skill_tools.evaluation.extract import extract_config

    launcher = (f"{F}python\nimport subprocess\nsubprocess.run([\"torchrun\", \"pretrain_gpt.py\", \"--cuda-graph-impl\", "
                f"\"full_iteration\"], check=True)\n{F}")
    ex = extract_config(launcher)
    assert not ex.unsafe and ex.config.get("model.cuda_graph_impl") == "full_iteration"
    for body in ("subprocess.run([\"python\", \"x.py\"], shell=True)", "subprocess.run([\"bash\", \"-c\", \"python x.py\"])",
                 "subprocess.run(cmd)", "subprocess.run([\"touch\", \"f\"])"):
        assert extract_config(f"{F}python\nimport subprocess\n{body}\n{F}").unsafe, body


def test_a_method_named_eval_is_not_code_execution():
    """``model.eval()`` in an answer about torch.compile is a method call; the builtin is still refused."""
    from skill_tools.evaluation.extract import extract_config

    assert not extract_config("Recompiles come from `model.train()`/`model.eval()` toggles.").unsafe
    assert extract_config("Run `eval(open('x').read())` first.").unsafe
    assert extract_config("Run `builtins.eval(x)` first.").unsafe


def test_an_edit_script_may_open_the_workspace_config_it_edits():
    from skill_tools.evaluation.python_screen import python_hazard

    edit = ('from ruamel.yaml import YAML\nyaml = YAML()\npath = "llama32_1b_pretrain.yaml"\n'
            'cfg = yaml.load(open(path))\ncfg["model"]["cuda_graph_impl"] = "transformer_engine"\n'
            'yaml.dump(cfg, open(path, "w"))\n')
    assert python_hazard(edit) is None
    assert python_hazard('cfg = open("/etc/passwd").read()\n') == ("use of open", 1)
    assert python_hazard('cfg = open("../secrets.yaml").read()\n') == ("use of open", 1)
    assert python_hazard('data = open("model.bin", "rb").read()\n') == ("use of open", 1)
