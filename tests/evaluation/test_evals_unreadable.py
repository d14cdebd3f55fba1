"""An answer that cannot be read scores 0 with the reason, and scoring goes on."""

from __future__ import annotations

import json
from pathlib import Path

from skill_tools.evaluation.score import score_all
from skill_tools.evaluation.tasks import load_answers, load_tasks

ROOT = Path(__file__).resolve().parents[2]


def test_unreadable_answers_score_zero_with_the_reason(tmp_path):
    rows = [{"answer": None}, {"answer": 7}, {"answer": "   \n"}, {"answer": "\u0000\u0001\ufffd\u0002\u0003"},
            {"answer": ["a", "b"]}, {"answer_file": "missing.md"},
            {"answer": "Use `cuda_graph_impl=transformer_engine` with `cuda_graph_modules=[attn]`."}]
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps({"id": "dense-te-scoped-bringup", "condition": "with_skill",
                                        "agent": f"a{i}", **r}) + "\n" for i, r in enumerate(rows)))
    report = score_all(load_tasks(ROOT / "evals" / "evals.json"), load_answers(path))
    by_agent = {a["agent"]: a for a in report["answers"]}
    for i in range(6):
        a = by_agent[f"a{i}"]
        assert a["score"] == 0.0 and a["problem"].startswith("answer cannot be read: "), a["problem"]
    assert "empty" in by_agent["a0"]["problem"] and "not a string" in by_agent["a1"]["problem"]
    assert "not text" in by_agent["a3"]["problem"] and "not found" in by_agent["a5"]["problem"]
    assert by_agent["a6"]["problem"] is None and by_agent["a6"]["score"] > 0.0


def test_a_when_condition_applies_when_the_answer_says_nothing_about_graphs():
    from skill_tools.config.era import era_for
    from skill_tools.evaluation.answer_context import AnswerContext
    from skill_tools.evaluation.extract import extract_config
    from skill_tools.evaluation.rubric import run_check

    spec = {"type": "config", "keys": ["model.cpu_offloading"], "not_in": [True], "when": {"graphs": "on"}}
    text = "Keep `model.cpu_offloading=True`; it saves the memory you need."
    result = run_check(AnswerContext(text, extract_config(text), era_for("0.19.2")), spec)
    assert result.score == 0.0


def test_setattr_applying_dotted_overrides_is_read_but_reaching_internals_is_not():
    from skill_tools.evaluation.extract import extract_config

    fence = "```"
    applied = (f"{fence}python\noverrides = {{\"model.cuda_graph_impl\": \"transformer_engine\"}}\n"
               "for key, value in overrides.items():\n    section, name = key.split('.')\n"
               f"    setattr(getattr(cfg, section), name, value)\n{fence}\n")
    ex = extract_config(applied)
    assert not ex.unsafe and ex.config.get("model.cuda_graph_impl") == "transformer_engine"
    for hostile in ('getattr(cfg, "__class__")', 'setattr(cfg.model, "_secret", 1)', "g = getattr\ng(cfg, x)",
                    'setattr(__builtins__, "open", None)', 'getattr(cfg, "__class__", None)',
                    'getattr(cfg, "x", open("/etc/passwd"))'):
        assert extract_config(f"{fence}python\n{hostile}\n{fence}\n").unsafe, hostile
    # a lookup with a literal default, as recipes write it, is read
    guarded = (f"{fence}python\nif getattr(cfg, \"comm_overlap\", None) is not None:\n    cfg.comm_overlap.x = 1\n"
               f"cfg.model.cuda_graph_impl = \"full_iteration\"\n{fence}\n")
    ex = extract_config(guarded)
    assert not ex.unsafe and ex.config.get("model.cuda_graph_impl") == "full_iteration"
