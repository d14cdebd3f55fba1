"""Claims and timing advice as writers reword them: a claim's object inflected, with a word or two
in between, or said with a near-synonym ("frees its gathered weights" for "frees the
parameters") still binds; a comparative or a negation in between, or a supposition ("if padding
is turned off, MCore asserts"), does not. And an A/B timed over a window that holds the eager
warm-up or the capture step fails (rubric ``timing_window``), while advice that excludes that
window does not. Answers written for these tests, through the whole scorer and the task set's
own checks."""

from __future__ import annotations

import pytest
from one_answer import checks_of, score_one

from skill_tools.evaluation.loose_phrases import loose_mentions, loose_pattern

FSDP = ("Apply `fully_shard` to every transformer block first, then to the root model, and build the optimizer "
        "after wrapping.\n\n")


@pytest.mark.parametrize("phrase, text", [
    ("frees the parameters", "each block frees its gathered weights right after forward"),
    ("lower peak memory", "lowest peak memory of the two"),
    ("saves memory", "saving GPU memory"),
    ("more memory", "more peak memory"),
])
def test_reworded_phrase_matches(phrase, text):
    assert loose_mentions(text.lower(), [phrase]), (phrase, text)


@pytest.mark.parametrize("phrase, text", [
    ("cuts communication", "ZeRO-3 pays for the savings with more communication"),
    ("saves memory", "it saves nothing; memory stays"),
    ("frees the parameters", "frees nothing.\nParameters stay"),
])
def test_a_comparative_negation_or_sentence_end_between_words_breaks_the_match(phrase, text):
    assert not loose_mentions(text.lower(), [phrase])


def test_identifiers_and_single_words_are_left_to_exact_matching():
    assert loose_pattern("reshard_after_forward=False") is None
    assert loose_pattern("faster") is None
    assert loose_pattern("`mamba` scope") is None


@pytest.mark.parametrize("claim", [
    "- `reshard_after_forward=False`: each block frees its gathered weights once its forward is done; "
    "lowest peak memory.\n- `reshard_after_forward=True`: the weights stay resident until backward.\n",
    "With reshard_after_forward=False every unit drops the all-gathered params after forward, which is what "
    "you want on a memory-tight 13B run.\n",
])
def test_the_inverted_reshard_trade_off_reworded_fails(claim):
    row = score_one("neg-fsdp-sharding", FSDP + claim)
    assert not row["passed"], row["fatal"]
    assert any(c["score"] == 0.0 for c in checks_of(row, "claim_absent"))


@pytest.mark.parametrize("right", [
    "`reshard_after_forward=True` frees the gathered weights after forward (lowest memory, one more all-gather in "
    "backward); `reshard_after_forward=False` keeps them gathered: faster, more memory. Pick True for 13B on "
    "16 GPUs unless memory is plentiful.\n",
    "reshard_after_forward=False saves no memory at all: it keeps the unsharded weights until backward.\n",
])
def test_the_right_trade_off_reworded_passes(right):
    row = score_one("neg-fsdp-sharding", FSDP + right)
    assert row["passed"], row["fatal"]


DENSE = """```python
cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_modules = ["attn"]
cfg.model.cuda_graph_warmup_steps = 3
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True
```

Keep seq_length=8192 and micro_batch_size=1 static. Profile eager first with nsys to see launch gaps.
"""


@pytest.mark.parametrize("advice", [
    "Then compare the mean elapsed time per iteration over iterations 1-50 of both logs.",
    "Run both for 5 iterations and look at iteration 4 of the graphed log against eager iteration 4.",
    "Judge it on the average of the first 10 iterations of each run.",
    "Compare the very first iteration's time of each run: that is where launch overhead shows most.",
])
def test_timing_over_warmup_or_capture_fails(advice):
    row = score_one("dense-te-scoped-bringup", DENSE + advice + "\n")
    (check,) = checks_of(row, "timing_window")
    assert check["score"] == 0.0 and check["fatal"], check
    assert not row["passed"]


@pytest.mark.parametrize("advice", [
    "Compare post-capture replay iterations only: skip iterations 1-4 (three eager warm-up steps and the capture).",
    "Measure the median step time over iterations 20-100 of both logs, after warm-up and capture.",
    "Never judge the speedup on the capture step; it also runs a warm-up pass and a replay.",
    "If your number averages iterations 1-N, the capture step alone can wipe out a 10 % win; "
    "compare steady-state replay steps instead.",
    '**"It was slower!"**: someone averaged iterations that included the capture step.',
])
def test_timing_that_excludes_warmup_and_capture_passes(advice):
    row = score_one("dense-te-scoped-bringup", DENSE + advice + "\n")
    (check,) = checks_of(row, "timing_window")
    assert check["score"] is None, check
    assert row["passed"], row["fatal"]


def test_the_window_follows_the_answers_own_warmup():
    text = DENSE.replace("warmup_steps = 3", "warmup_steps = 10") + \
        "Compare the mean step time over iterations 8-40 of both runs.\n"
    (check,) = checks_of(score_one("dense-te-scoped-bringup", text), "timing_window")
    assert check["score"] == 0.0  # iteration 11 captures: 8-40 holds it


@pytest.mark.parametrize("text,caught", [
    ("Run train_iters=10 for both and compare the mean step time over all 10 iterations.", True),
    ("| Setting | eager | graphs |\n|---|---|---|\n| Iterations averaged | 2–9 | 2–9 |\n", True),
    ("| Setting | eager | graphs |\n|---|---|---|\n| Iterations averaged | 10–50 | 10–50 |\n", False),
    ("Compare the mean over all 3 iterations after the capture step.", False),
    ("```bash\nfor impl in none full_iteration; do\n  /usr/bin/time -f \"%e s\" torchrun --nproc-per-node 1 "
     "pretrain_gpt.py --cuda-graph-impl $impl\ndone\n```\n", True),
    ("```\n$ time srun -N1 bash train.sh\n```\n", True),
    ("Don't time it with `time torchrun …`: that clock holds start-up and capture.", False),
    ("```\ntime python -c 'import torch'\n```\n", False),
])
def test_timing_windows_written_as_all_n_or_as_a_table_row(text, caught):
    from skill_tools.config.era import era_for
    from skill_tools.evaluation.answer_context import AnswerContext
    from skill_tools.evaluation.extract import extract_config
    from skill_tools.evaluation.timing_window import find_window

    assert (find_window(AnswerContext(text, extract_config(text), era_for("0.19.2"))) is not None) == caught


@pytest.mark.parametrize("advice", [
    "```python\n# Iteration 1 of the graph run contains the CUDA graph capture, so we drop it and\n"
    "# average the rest of both runs.\nSKIP_FIRST = 1\n```",
    "Iteration 1 is the slow one (graph capture happens on the first step), so drop it and average the rest.",
    "```python\n# compare the mean step time over\n# all logged iterations of each run, warm-up included\n```",
    "Compare the mean over the whole run of both jobs.",
])
def test_a_window_that_drops_only_the_first_iteration_or_keeps_all_fails(advice):
    row = score_one("dense-te-scoped-bringup", DENSE + advice + "\n")
    (check,) = checks_of(row, "timing_window")
    assert check["score"] == 0.0 and check["fatal"], check


@pytest.mark.parametrize("advice", [
    "The capture does not happen on the first iteration but on iteration 4: compare iterations 10-50 only.",
    "Compare the mean over all logged iterations after the capture step (iteration 4).",
])
def test_placing_the_capture_after_warmup_passes(advice):
    row = score_one("dense-te-scoped-bringup", DENSE + advice + "\n")
    (check,) = checks_of(row, "timing_window")
    assert check["score"] is None, check


def test_with_no_warmup_the_first_iteration_does_capture():
    text = DENSE.replace("warmup_steps = 3", "warmup_steps = 0") + \
        "Iteration 1 contains the graph capture, so drop it and compare iterations 2-40.\n"
    (check,) = checks_of(score_one("dense-te-scoped-bringup", text), "timing_window")
    assert check["score"] is None, check


@pytest.mark.parametrize("advice,caught", [
    ("```python\n# use the same window (iterations 1..50) for both runs so the comparison is apples to apples\n"
     "e, g = statistics.mean(eager), statistics.mean(graph)\n```", True),
    ("**If you want to double-check from your log**, take the first 20 iterations of each run and compare the means.", True),
    ("An average that includes iteration 1..4 will make graphs look\nslower.", False),
    ("One fast iteration, or a mean that includes iteration 1 / the capture step, proves nothing.", False),
])
def test_ranges_written_with_two_dots_a_preference_and_a_warning(advice, caught):
    row = score_one("dense-te-scoped-bringup", DENSE + advice + "\n")
    (check,) = checks_of(row, "timing_window")
    assert (check["score"] == 0.0) == caught, check
