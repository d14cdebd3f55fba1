"""The bench progress bar: a redrawn bar on a terminal, plain lines in a pipe or a log file."""

from __future__ import annotations

import io

from skill_tools.harness.runner import Progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_pipe_gets_one_plain_line_per_finished_step():
    out = io.StringIO()
    bar = Progress(2, stream=out)
    bar.show("eager trial 1/1")
    bar.step("eager trial 1: ok")
    bar.show("full_iteration trial 1/1")
    bar.step("full_iteration trial 1: timeout")
    bar.close()
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue() and len(lines) == 2
    assert lines[0].startswith("[1/2 ") and lines[0].endswith("eager trial 1: ok")
    assert lines[1].startswith("[2/2 ") and lines[1].endswith("timeout")


def test_terminal_gets_a_redrawn_bar_and_a_final_newline():
    out = _Terminal()
    bar = Progress(2, stream=out)
    bar.show("eager")
    bar.step("eager: ok")
    bar.close()
    text = out.getvalue()
    assert text.count("\r") == 2 and text.endswith("\n") and "1/2" in text


def test_disabled_is_silent():
    out = _Terminal()
    bar = Progress(1, enabled=False, stream=out)
    bar.show("x")
    bar.step("x")
    bar.close()
    assert out.getvalue() == ""
