"""benchmarks/bench_evals_rerender.py re-renders only the prose of Markdown answers: fenced code,
code-like lines and non-Markdown answers stay as written, and an unknown re-rendering is refused."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_evals_rerender.py"
_spec = importlib.util.spec_from_file_location("bench_evals_rerender", _PATH)
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

ANSWER = ("## Fix for megatron-core 0.19\n\nSet `cuda_graph_impl=\"transformer_engine\"` and **keep** the tracker on.\n"
          "- Then compare the steady iterations with an eager run.\n\n"
          "```python\ncfg.model.cuda_graph_impl = \"transformer_engine\"\n# - a comment\n```\n")


def test_the_prose_changes_and_the_fenced_block_does_not():
    fence = ANSWER[ANSWER.index("```"):]
    for name, fn in bench.RERENDERINGS.items():
        out = bench._prose_map(ANSWER, fn)
        assert out.endswith(fence), name
    assert "'cuda_graph_impl=\"transformer_engine\"'" in bench._prose_map(ANSWER, bench.RERENDERINGS["quotes"])
    assert "Fix for megatron-core 0.19\n" in bench._prose_map(ANSWER, bench.RERENDERINGS["headings"])
    assert "* Then compare" in bench._prose_map(ANSWER, bench.RERENDERINGS["bullets"])
    assert "**" not in bench._prose_map(ANSWER, bench.RERENDERINGS["emphasis"])


def test_an_answer_without_fences_and_a_code_like_line_stay_as_written():
    plain = "cfg.model.cuda_graph_impl = 'local'\nThen Compare The Runs after capture.\n"
    assert bench._prose_map(plain, bench.RERENDERINGS["capitals"]) == plain
    assert bench.RERENDERINGS["capitals"]("cfg.model.x = True\nThen Compare The runs after capture") == \
        "cfg.model.x = True\nthen compare the runs after capture"


def test_an_unknown_rerendering_or_no_split_is_refused(tmp_path, capsys):
    assert bench.main([str(tmp_path / "none-*"), "--only", "quotes"]) == 2
    assert bench.main([str(tmp_path), "--only", "shout"]) == 2
    assert "unknown re-rendering" in capsys.readouterr().err
