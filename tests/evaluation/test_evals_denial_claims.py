"""Claims that are themselves denials (``claim_absent`` with ``negative``): "on B200 you can leave
NCCL_GRAPH_REGISTER unset", "the number of microbatches doesn't change graph memory". The negation
such an object carries is the claim, so it binds; a negation before the subject ("not only on
Blackwell") or a nearer rival ("Blackwell still needs it", "memory scales with the microbatch count")
unbinds it. Answers written for these tests (the wording of wrong answers seen in held-out sets),
through the whole scorer and the task set's own checks."""

from __future__ import annotations

import pytest
from one_answer import assert_claimed, assert_passes, checks_of, score_one

from skill_tools.evaluation.answer_context import _synonym_pattern

TE_FIX = ("Keep `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True` and add `export NCCL_GRAPH_REGISTER=0` before "
          "launch: NCCL's graph user-buffer registration with expandable segments can hit an illegal memory "
          "access, which is why TECudaGraphHelper asserts it for cuda_graph_impl=transformer_engine.\n\n")


@pytest.mark.parametrize("claim", [
    "On B200/GB200/B300 you can leave it unset and keep registration on for slightly faster collectives.\n",
    "MCore only enforces it before Blackwell, because Blackwell's NCCL path handles remapped segments.\n",
    "Sur B200/GB200, tu peux garder `expandable_segments` sans `NCCL_GRAPH_REGISTER=0`.\n",
    "`NCCL_GRAPH_REGISTER=0` is only needed for `cuda_graph_impl=local` on pre-Blackwell GPUs.\n",
])
def test_a_blackwell_exemption_for_te_graphs_fails(claim):
    assert_claimed("expandable-segments-te-assert", TE_FIX + claim)


@pytest.mark.parametrize("right", [
    "The `local` impl asserted it only on pre-Blackwell GPUs in 0.16-0.18 and 0.19 removed that check; for TE "
    "graphs it applies on every GPU.\n",
    "Even where a check doesn't fire (local graphs on 0.19, or on Blackwell), set it anyway.\n",
    "On B200 the TE helper still asserts it, so the export is needed there as well.\n",
])
def test_the_local_only_gate_and_blackwell_still_needing_it_pass(right):
    assert_passes("expandable-segments-te-assert", TE_FIX + right)


PP = ("With PP>1 the TE helper captures one graph per layer per microbatch, each with static input/output/grad "
      "buffers, so keep headroom: graphs are a throughput optimization, not a fit technique.\n\n")


@pytest.mark.parametrize("claim", [
    "The microbatch count (GBS 128 / MBS 1 / DP 1 = 128) doesn't matter here.\n",
    "So your GBS and the number of microbatches don't change graph memory at all.\n",
    "Lowering GBS or raising MBS won't shrink graph memory.\n",
])
def test_graph_memory_said_independent_of_microbatches_fails(claim):
    assert_claimed("pp-memory-oom", PP + claim)


def test_fewer_microbatches_as_the_lever_passes():
    row = score_one("pp-memory-oom", PP + "Fewer microbatches (MBS 1 -> 4) cuts the graph count 4x: the number of "
                    "microbatches scales graph memory. Upgrade for buffer reuse, or narrow the scope.\n")
    assert row["passed"], row["fatal"]


def test_code_marks_between_the_words_of_a_phrase_still_match():
    assert _synonym_pattern("without NCCL_GRAPH_REGISTER").search("run without `nccl graph register=0`")
    assert not _synonym_pattern("without NCCL_GRAPH_REGISTER").search("without the nccl graph register")


NAN_BISECT = ("A/B at the same seed with graphs off, then narrow the scope (attn only, then none); upgrade TE and "
              "megatron-core and compare the loss curves. Known replay-numerics causes: EP overlap with attn graphs, "
              "wgrad ordering, 1F1B parameter order.\n\n")


@pytest.mark.parametrize("claim", [
    "CUDA graph replay is numerically identical to the eager step it recorded.\n",
    "Keep the scope while you check data; the attention graph is not what is producing the NaN.\n",
    "replay = same math, just fewer CPU launches.\n",
])
def test_graph_replay_exonerated_for_the_nan_fails(claim):
    assert_claimed("diagnose-nan-after-graphs", NAN_BISECT + claim)


def test_replay_bugs_named_as_a_cause_pass():
    assert_passes("diagnose-nan-after-graphs", NAN_BISECT + "Graph replay can cause this: a stale buffer or a replay "
                  "bug produces exactly this drift, so graphs are the first suspect.\n")


def test_a_pronoun_that_takes_up_the_subject_carries_the_claim():
    assert_claimed("diagnose-nan-after-graphs", NAN_BISECT + "CUDA graphs can make a run crash, but they cannot by "
                   "themselves make grad norm creep up.\n")


TE_ASSERT_FIX = ("Keep expandable segments and `export NCCL_GRAPH_REGISTER=0`: NCCL's user-buffer registration of graph "
                 "memory with remapped segments can hit an illegal memory access, so TECudaGraphHelper asserts it.\n\n")


@pytest.mark.parametrize("claim", [
    "megatron-core 0.19 dropped this startup check, so on 0.19+ expandable segments work on their own.\n",
    "| megatron-core | transformer_engine impl |\n|---|---|\n| 0.16 – 0.18 | asserted |\n| 0.19 | assert removed |\n",
])
def test_the_te_assert_said_removed_in_019_fails(claim):
    assert_claimed("expandable-segments-te-assert", TE_ASSERT_FIX + claim)


@pytest.mark.parametrize("right", [
    "- `local` impl: asserted only on pre-Blackwell GPUs in 0.16 .. 0.18 -- 0.19 dropped that check.\n",
    "| | `transformer_engine` | `local` |\n|---|---|---|\n| mcore 0.19 | asserted, all GPUs | check removed |\n",
])
def test_the_local_check_removed_in_019_passes(right):
    assert_passes("expandable-segments-te-assert", TE_ASSERT_FIX + right)


def test_a_comment_wrapped_over_lines_reads_as_one_sentence_without_its_markers():
    from skill_tools.evaluation.wrapping import unwrapped

    text = "; the pad flag only changes whether the leftover\n; slots are zero-padded; it's optional\n"
    joined = unwrapped(text)
    assert len(joined) == len(text) and "leftover   slots" in joined


def test_its_takes_up_the_subject_in_a_wrapped_ini_comment():
    answer = ("; moe scope: capacity factor 1.0, TE impl, attn+moe, moe_router out, both TE RNG tracker keys.\n"
              "; moe_pad_expert_input_to_capacity only changes whether the leftover\n"
              "; slots are zero-padded; it's a throughput knob and optional for graphing.\n"
              "[model]\nmoe_expert_capacity_factor = 1.0\nmoe_pad_expert_input_to_capacity = True\n")
    assert_claimed("moe-drop-pad-moe-scope", answer)


def test_an_org_mode_table_is_read_as_a_table():
    table = ("| megatron-core | TE graphs (transformer_engine) | local graphs |\n"
             "|---------------+--------------------------------+--------------|\n"
             "| 0.16 - 0.18   | asserted                       | asserted on pre-Blackwell |\n"
             "| 0.19          | check removed                  | check removed |\n")
    assert_claimed("expandable-segments-te-assert", TE_ASSERT_FIX + table)


def test_ddp_kept_where_it_is_fails_the_stale_stream_task():
    answer = ("The AccumulateGrad nodes are stale for the capture stream; use a PyTorch with "
              "set_override_stale_capture_stream (pytorch#180090) and run the steps on the capture stream.\n"
              "# Keep building the model and DDP exactly where you do now.\n")
    assert_claimed("capture-fails-stale-stream", answer)
