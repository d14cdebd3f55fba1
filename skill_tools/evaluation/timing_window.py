"""Timing advice that charges the graphed run for its eager warm-up and its capture step.

A graphed run's first ``cuda_graph_warmup_steps`` iterations run eagerly and the next one
captures (many times slower than a replay); only the iterations after it show what graphs do.
An answer can write a sound config and still tell the user to compare "the mean over iterations
1-50", "the first 10 iterations" or "iteration 4, where the graph is recorded": the A/B then
measures warm-up and capture, and the user turns graphs off (or keeps them) on a wrong number.
Writers say this in many ways; this check reads the ways that carry their own evidence, a
timing sentence that names a window starting at the first iterations:

- a range of iterations or steps that starts at or before the capture step ("iterations 1–50",
  "steps 0..20", "iterations 4-N" with the default warm-up of 3);
- "the first N iterations" or "the first iteration" (not "the first 3 iterations are eager warm-up",
  which says what they are);
- the capture iteration itself ("iteration 4" with the default warm-up of 3, "the capture step");
- "all N iterations" of a run longer than warm-up and capture, "all logged iterations", "the whole run";
- a sentence that places the capture on the first iteration ("Iteration 1 contains the CUDA graph
  capture, so we drop it") when the warm-up is one or more: the capture comes after the warm-up, so
  dropping the first iteration keeps warm-up and capture in the timing (with or without "drop");
- dropping only the warm-up or first iteration ("drop the warm-up iteration, time N steady-state
  iterations") when the warm-up is one or more and the sentence does not name the capture;
- a settings table's row "| Iterations averaged | 2–9 |" whose range holds the capture step;
- a harness's code that keeps the times after fewer iterations than warm-up and capture
  (``times[WARMUP:]`` with ``WARMUP = 3``, ``if int(m.group(1)) > SKIP_FIRST:`` with ``SKIP_FIRST = 1``);
- a command line that times a whole training launch (``/usr/bin/time -f "%e s" torchrun …``, ``time
  srun …``, ``hyperfine 'torchrun …'``): its wall clock holds start-up, warm-up and capture.

Sentences are read with hard-wrapped lines and comments joined (:func:`wrapping.unwrapped`); a line
that is not wrapped into the next, or reads as code (``eff = (capture_step_ms + n * step_ms) / …``),
is read on its own too. "If you want to …, take the first 20 iterations" is advice, not a supposition.

A sentence that excludes the window ("skip", "exclude", "discard", "after", "never", "not", …)
advises against it and binds nothing, as does one that warns what such a window does ("If your
number averages iterations 1–N, the capture step alone can wipe out a 10 % win") or tells what
someone did ("someone averaged iterations that included the capture step"). The warm-up is the answer's own
``cuda_graph_warmup_steps`` when it sets one, else megatron-core's default of 3. English only:
other languages are left to the judge.
"""

from __future__ import annotations

import re
from typing import Any

from skill_tools.evaluation.answer_context import AnswerContext, CheckResult, normalise, quote
from skill_tools.evaluation.wrapping import unwrapped

_DEFAULT_WARMUP = 3  # TransformerConfig.cuda_graph_warmup_steps (core_v0.19.0 transformer_config.py)
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?=[\d.])|(?<=\.)\.)+(?:[.!?](?![\d.])|$)", re.M)  # "1..50" ends no sentence
#: Words of a sentence that times or compares runs.
_TIMES = re.compile(r"(?<![a-z])(?:compar\w*|mean|average\w*|averaging|median|elapsed|speed ?up\w*|step time|"
                    r"iteration time|time per|timing|judge|measur\w*|faster|throughput|tokens/s|look at|vs\.?|versus)"
                    r"(?![a-z])")
#: Words that exclude the window, or say not to time it.
_EXCLUDES = re.compile(r"(?<![a-z])(?:exclud\w*|skip\w*|drop\w*|discard\w*|ignor\w*|throw\w* away|leave out|"
                       r"leaving out|after|past|beyond|post capture|steady|never|not|no|don't|do not|avoid\w*|"
                       r"instead of|rather than|without|except|minus|slow\w*|inflat\w*|distort\w*|misleading|"
                       r"meaningless|proves? nothing|tells? (?:you )?nothing|means nothing|says nothing|wrong|noise|outlier|wip\w*|hid\w*|swamp\w*|dominat\w*|skew\w*|pitfall|mistake|trap|"
                       r"^\W*if(?!\s+you\s+(?:want|wish|need|prefer|would like|'d like))|someone|somebody|averaged|compared|measured|timed)(?![a-z])")
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                 "nine": 9, "ten": 10, "twenty": 20, "fifty": 50, "hundred": 100}
#: On normalised text, where "1-50" reads "1 50".
_RANGE = re.compile(r"(?<![a-z])(?:iterations?|iters?|steps?)\s+(\d{1,4})\s*(?:–|—|to|through|\.\.|\s)\s*"
                    r"(\d{1,5}|n|\$\w+|the end|end)(?![\d%\w]|\.\d)")  # "1-10." ends a sentence; "4-N", "4 to the end": open
_FIRST_N = re.compile(r"(?<![a-z])(?:the\s+)?first\s+(\d{1,4}|" + "|".join(_NUMBER_WORDS) +
                      r")\s+(?:\w+\s+)?(?:iterations|iters|steps)")
_FIRST = re.compile(r"(?<![a-z])(?:the\s+)?(?:very\s+)?first\s+(?:\(?\w+\)?\s+)?(?:iteration|iter|step)(?![a-z])")  # "first (capture) iteration"
_AT = re.compile(r"(?<![a-z])(?:iteration|iter|step)\s+#?(\d{1,4})(?![\d.])")
_CAPTURE = re.compile(r"(?<![a-z])(?:the\s+)?capture\s+(?:step|iteration)(?![a-z])")
#: "over all 10 iterations", "every 20 steps of the run": a window from the first iteration on.
_ALL_N = re.compile(r"(?<![a-z])(?:all|every|each of the)\s+(\d{1,4}|" + "|".join(_NUMBER_WORDS) +
                    r")\s+(?:\w+\s+)?(?:iterations|iters|steps)(?![a-z])")
#: "the mean over all logged iterations", "average the whole run": a window from the first iteration on.
_WHOLE_RUN = re.compile(r"(?<![a-z])(?:all\s+(?:the\s+)?(?:logged\s+|reported\s+|printed\s+|measured\s+)?(?:iterations|iters|steps)|"
                        r"the\s+(?:whole|entire|full)\s+run)(?![a-z])")
#: A sentence that places the capture on the first iteration ("Iteration 1 … contains the CUDA graph
#: capture", "graph capture happens on the first step", "first iteration = capture"): with a warm-up of
#: one or more the capture comes later, so dropping that iteration keeps warm-up and capture in the timing.
_FIRST_CAPTURE = re.compile(
    r"(?<![a-z])(?:(?:graph\s+)?captur\w*\s+(?:\w+\s+){0,3}(?:on|in|at|during)\s+(?:the\s+)?(?:(?:very\s+)?first\s+(?:logged\s+|training\s+)?"
    r"(?:iteration|iter|step)|(?:iteration|iter|step)\s+(?:#\s?)?1(?![\d.]))"
    r"|(?:iteration|iter|step)\s+(?:#\s?)?1(?![\d.])[^.;]{0,40}?(?:contains|holds|includes|is|does|=)\s+(?:\w+\s+){0,4}?captur\w*"
    r"|(?:the\s+)?first\s+(?:iteration|iter|step)\s*(?:=|is|holds|contains|includes|does)\s+(?:\w+\s+){0,3}?captur\w*)")
#: A sentence that keeps a warm-up ("keep cuda_graph_warmup_steps at >= 1: capturing on the very first
#: step records …") warns what capturing on the first step would do; it places no capture there.
_WARMUP_KEPT = re.compile(r"warm\s?up(?:\s+steps)?[^.;]{0,30}?(?:>=|≥|at least|non ?zero|positive|above (?:0|zero))")
#: "Capturing on the very first step would record one-time initialisation": what it would do, a warning.
_HYPOTHETICAL = re.compile(r"[^.;]{0,20}?(?<![a-z])(?:would|could|might)(?![a-z])")
#: Right after a window, what says it *is* the warm-up or the capture ("the first 3 iterations are eager
#: warm-up, capture happens at the start of the next one"): the sentence names the window to explain it.
_IS_WARMUP = re.compile(r"\s*(?:are|is|=|:|run|runs|get|go)\s+(?:\w+\s+){0,2}?(?:warm\s?up|eager\w*|captur\w*)(?![a-z])")
#: Dropping one iteration as if it held all the warm-up ("drop the warm-up iteration", "skip only the first step").
_DROP_FIRST = re.compile(r"(?<![a-z])(?:drop|skip|discard|exclude|ignore|throw away)\w*\s+(?:only\s+)?(?:the\s+)?"
                         r"(?:first|1st|warm ?up|initial)\s+(?:iteration|iter|step)(?![a-z])")
#: A line that reads as code (an assignment, a call, an index), not a sentence wrapped into the next.
_CODE_CHARS = re.compile(r"[=\[\]()]")
_NOT = re.compile(r"(?<![a-z])(?:not|never|isn't|doesn't|no|rather than|instead of|but)(?![a-z])|n't(?![a-z])")
#: A table row that states the timed window: "| Iterations averaged | 2–9 | 2–9 |".
_ROW_LABEL = re.compile(r"^\s*\|\s*(?:iterations?|iters?|steps?)\s+(?:averaged|timed|measured|compared|used)\s*\|")
#: A command line that times a whole training launch (``/usr/bin/time -f "%e" torchrun …``, ``time srun …``,
#: ``hyperfine 'torchrun …'``): the wall clock holds start-up, warm-up and capture.
_PROCESS_TIMER = re.compile(
    r"^\s*(?:[$>]\s*|[-*]\s+|\d+[.)]\s+)?(?:for\b[^;]*;\s*do\s+)?(?:(?:/usr/bin/)?time|hyperfine)\b(?:\s+-{1,2}[\w-]+(?:[= ](?:\"[^\"]*\"|'[^']*'|\S+))?)*"
    r"\s+['\"]?(?:\S+=\S+\s+)*(?:torchrun|srun|mpirun|deepspeed|uv\s+run|python[\d.]*\s+\S*(?:pretrain|train|run_recipe|run_script|finetune)\S*|"
    r"(?:bash\s+)?\S*(?:train|pretrain|launch|run)\S*\.sh)(?![\w-])", re.M)
_ROW_RANGE = re.compile(r"\|\s*(\d{1,4})\s*(?:–|—|to|\.\.|\s)\s*(\d{1,5})\s*(?=\|)")


def _warmup(ctx: AnswerContext) -> int:
    value = ctx.config.get("model.cuda_graph_warmup_steps")
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1000 else _DEFAULT_WARMUP


def _window(sentence: str, capture_at: int) -> str | None:
    """The window a timing sentence names that contains warm-up or capture, else None."""
    for m in _RANGE.finditer(sentence):
        last = int(m.group(2)) if m.group(2).isdigit() else 10 ** 6
        if int(m.group(1)) <= capture_at < last or int(m.group(1)) <= 1 < last:
            return m.group()
    m = _FIRST_N.search(sentence)
    if m and not _IS_WARMUP.match(sentence, m.end()):
        return m.group()
    m = _ALL_N.search(sentence)
    if m and (int(m.group(1)) if m.group(1).isdigit() else _NUMBER_WORDS[m.group(1)]) > capture_at:
        return m.group()
    m = _WHOLE_RUN.search(sentence)
    if m:
        return m.group()
    m = _FIRST.search(sentence) or _CAPTURE.search(sentence)
    if m:
        return m.group()
    for m in _AT.finditer(sentence):
        if int(m.group(1)) in (1, capture_at):
            return m.group()
    return None


#: Code that keeps the per-iteration times after the first K: ``times[WARMUP:]`` (a list named for
#: times), ``if int(m.group(1)) > SKIP_FIRST:`` / ``if it >= 2:`` (an iteration number compared).
_SLICED = re.compile(r"\b\w*(?:time|ms|step|iter|lat|elapsed|dur)\w*\s*\[\s*([A-Za-z_]\w*|\d{1,4})\s*:\s*\]", re.I)
_KEPT_AFTER = re.compile(r"\b(?:int\(\s*m(?:atch)?\.group\(\s*1\s*\)\s*\)|iter\w*|it|step\w*)\s*(>=?)\s*([A-Za-z_]\w*|\d{1,4})\b")


def _code_window(text: str, capture_at: int) -> tuple[int, str] | None:
    """A harness's code that drops fewer iterations than the warm-up and the capture step: it keeps
    iteration K+1 on, and K+1 <= the capture iteration (a name is resolved from its ``NAME = 3``)."""
    def value(token: str) -> int | None:
        if token.isdigit():
            return int(token)
        m = re.search(rf"^[ \t]*{re.escape(token)}\s*(?::\s*int\s*)?=\s*(\d{{1,4}})\s*(?:#.*)?$", text, re.M)
        return int(m.group(1)) if m else None
    for m in _SLICED.finditer(text):
        k = value(m.group(1))
        if k is not None and k + 1 <= capture_at:
            return m.start(), m.group()
    for m in _KEPT_AFTER.finditer(text):
        k = value(m.group(2))
        if k is not None and k + (m.group(1) == ">") <= capture_at:
            return m.start(), m.group()
    return None


def find_window(ctx: AnswerContext) -> tuple[int, str] | None:
    """(position, window) of the first timing sentence that includes warm-up or capture."""
    capture_at = _warmup(ctx) + 1  # iterations count from 1 in Megatron's log
    timer = _PROCESS_TIMER.search(ctx.text)
    if timer:
        return timer.start(), "the whole process (" + " ".join(timer.group().split()[:3]) + " …)"
    code = _code_window(ctx.text, capture_at)
    if code is not None:
        return code
    offset = 0
    for line in ctx.norm.split("\n"):  # a settings table's row names the window in its cells
        rng = _ROW_RANGE.search(line) if _ROW_LABEL.match(line) else None
        if rng and int(rng.group(1)) <= capture_at < int(rng.group(2)):
            return offset, rng.group().strip("| ")
        offset += len(line) + 1
    joined = normalise(unwrapped(ctx.text))  # a comment wrapped over lines is one sentence; a line of code,
    lines = [] if joined == ctx.norm else [  # or one not wrapped into the next, is read on its own too
        m for m in _SENTENCE.finditer(ctx.norm)
        if joined[ctx.norm.find("\n", m.start()) % len(joined)] != " " or _CODE_CHARS.search(m.group())]
    for m in [*_SENTENCE.finditer(joined), *lines]:
        sentence = m.group()
        first = _FIRST_CAPTURE.search(sentence) if capture_at > 1 and not _NOT.search(sentence) \
            and not _WARMUP_KEPT.search(sentence) else None
        first = None if first and _HYPOTHETICAL.match(sentence, first.end()) else first
        drop = _DROP_FIRST.search(sentence) if capture_at > 1 and "captur" not in sentence else None
        if first or drop:  # "drop the warm-up iteration, time N steady-state iterations": warm-up and capture stay in
            return m.start(), (first or drop).group()
        if not _TIMES.search(sentence) or _EXCLUDES.search(sentence):
            continue
        window = _window(sentence, capture_at)
        if window is not None:
            return m.start(), window
    return None


def check_timing_window(ctx: AnswerContext, spec: dict[str, Any]) -> CheckResult:
    name = spec["name"]
    found = find_window(ctx)
    if found is None:
        return CheckResult("timing_window", name, None, "not applicable: times no window with warm-up or capture in it")
    pos, window = found
    return CheckResult("timing_window", name, 0.0,
                       f"times the runs over {window!r}, which holds the eager warm-up or the capture step: "
                       "compare post-capture replay iterations only", quote(ctx.text, pos), fatal=True)
