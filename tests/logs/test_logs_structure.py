"""Structural reading: tracebacks in every shape people paste, stack dumps, stacks, verdicts.

Inputs are built from the shapes seen in the corpus (tests/fixtures/logs/corpus): rank and
launcher prefixes, interleaved ranks, chained and cut tracebacks, py-spy/faulthandler/gdb dumps.
The two Megatron tracebacks at the end reproduce the frames of the failing functions named in
upstream source (file:line cited next to them); they are constructed, not copied from a run.
"""

from __future__ import annotations

import pytest

from skill_tools.logs.parse import parse_lines
from skill_tools.logs.prefix import strip as strip_prefix
from skill_tools.logs.verdict import build

pytestmark = pytest.mark.legacy


def _verdict(lines):
    log = parse_lines(lines)
    return log, build(log)


def test_interleaved_rank_tracebacks_are_kept_apart():
    lines = [
        "[rank0]: Traceback (most recent call last):",
        "[rank1]: Traceback (most recent call last):",
        '[rank0]:   File "/opt/megatron/training/training.py", line 10, in train',
        '[rank1]:   File "/opt/megatron/core/transformer/cuda_graphs.py", line 20, in create_cudagraphs',
        "[rank0]:     step()",
        "[rank1]:     capture()",
        "[rank0]: ValueError: bad config",
        "[rank1]: RuntimeError: CUDA error: operation not permitted when stream is capturing",
    ]
    log, v = _verdict(lines)
    by_rank = {e.rank: e for e in log.exceptions}
    assert by_rank[0].type == "ValueError" and by_rank[0].message == "bad config"
    assert by_rank[0].frames[-1].func == "train"
    assert by_rank[1].type == "RuntimeError" and by_rank[1].phase == "capture"
    assert v.stack["name"] == "megatron-lm" and v.stack["megatron"]
    ids = [f.id for f in v.failures]
    assert "stream-capture-invalidated" in ids and "uncaught-exception" in ids  # ValueError is a finding
    assert v.capture_status == "capture-failed"


def test_srun_prefixes_and_chained_exception():
    lines = [
        "0: Traceback (most recent call last):",
        '0:   File "/w/megatron/core/full_cuda_graph.py", line 232, in __call__',
        "0:     x()",
        "0: torch.AcceleratorError: CUDA error: operation would make the legacy stream depend on a capturing blocking stream",
        "0: ",
        "0: During handling of the above exception, another exception occurred:",
        "0: ",
        "0: Traceback (most recent call last):",
        '0:   File "/w/megatron/core/full_cuda_graph.py", line 240, in __call__',
        "0: RuntimeError: done",
    ]
    log, v = _verdict(lines)
    assert [(e.type, e.chained) for e in log.exceptions] == [("torch.AcceleratorError", False), ("RuntimeError", True)]
    assert v.failures[0].id == "stale-capture-stream"


def test_traceback_without_header_and_cut_before_exception():
    lines = ['  File "/usr/lib/python3/site-packages/vllm/worker/model_runner.py", line 1, in capture', "    y = f()"]
    log, v = _verdict(lines)
    (e,) = log.exceptions
    assert e.partial_start and not e.complete
    assert [f.id for f in v.failures] == ["incomplete-traceback"]
    assert v.stack["name"] == "vllm" and not v.stack["megatron"]
    assert v.capture_status == "capture-failed"


def test_unindented_frames_and_code_lines():
    lines = ["Traceback (most recent call last):", 'File "/x/nemo/a.py", line 3, in f', "return g()",
             'File "/x/nemo/b.py", line 4, in g', "raise KeyError('k')", "KeyError: 'k'"]
    log, _ = _verdict(lines)
    (e,) = log.exceptions
    assert e.type == "KeyError" and e.n_frames == 2 and not e.partial_start


def test_serving_prefixes_are_stripped():
    assert strip_prefix("(EngineCore_DP0 pid=387) ERROR 03-08 16:44:32 [core.py:1111]   File \"a.py\"")[1] == '  File "a.py"'
    assert strip_prefix("(RayWorkerWrapper pid=6774) INFO 12-24 21:49:17 model_runner.py:1400] Capturing")[1] == "Capturing"
    pre, rest = strip_prefix("[1,17]<stdout>:  File \"x\"")
    assert (pre.rank, rest) == (17, '  File "x"')
    pre, rest = strip_prefix("[80746] [rank4]:[E321 02:07:08] x")
    assert pre.rank == 4 and rest.endswith("x")
    assert strip_prefix("plain text") == (strip_prefix("")[0], "plain text")


def test_cxx_terminate_is_an_exception():
    lines = ["terminate called after throwing an instance of 'c10::DistBackendError'",
             "  what():  [PG 1 Rank 1] Process group watchdog thread terminated with exception: boom"]
    log, v = _verdict(lines)
    assert log.exceptions[0].type == "c10::DistBackendError"
    assert "nccl-error" in [f.id for f in v.failures]


@pytest.mark.parametrize("lines, kind", [
    (['Thread 12 (active): "MainThread"', "    replay (torch/cuda/graphs.py:88)", "    step (train.py:3)"], "py-spy"),
    (["Current thread 0x00007f95ca716740 (most recent call first):",
      '  File "/a/torch/cuda/graphs.py", line 88 in replay'], "faulthandler"),
    (["#0  0x00007f in cudaStreamSynchronize ()", "#1  0x00007f in PyEval ()"], "gdb"),
])
def test_stack_dumps_are_hang_evidence(lines, kind):
    log, v = _verdict(lines)
    (d,) = log.structure.dumps
    assert d.kind == kind
    assert "hang-stack-dump" in [f.id for f in v.failures] and v.hang == "yes"
    if kind != "gdb":
        assert v.capture_status == "replayed"  # the stuck thread is inside graph replay


def test_outside_megatron_only_stack_neutral_text():
    lines = ["(EngineCore pid=1) ERROR 07-15 00:27:03 core.py:1231] RuntimeError: CUDA error: out of memory"]
    _, v = _verdict(lines)
    (f,) = v.failures
    assert f.id == "cuda-oom" and "NCCL_GRAPH_REGISTER" not in f.fix and f.rule is None
    assert any("fix catalogue is Megatron's" in n for n in v.notes)


def test_nan_without_capture_is_unknown_not_acquittal():
    lines = [" [2026-01-01 00:00:00.000001] iteration        1/      10 | elapsed time per iteration (ms): 10.0 |"
             " lm loss: nan | grad norm: nan | number of nan iterations:   1 |"]
    log, v = _verdict(lines)
    (f,) = v.failures
    assert f.id == "nan-or-inf" and "unknown" in f.cause and "does not implicate" not in f.cause
    assert v.nan.startswith("yes") and "unknown" in v.nan


def test_time_limit_before_training_done_is_a_hang_finding():
    lines = [" [2026-01-01 00:00:00.000001] iteration        1/      10 | elapsed time per iteration (ms): 10.0 |",
             "slurmstepd: error: *** STEP 1250740.1 ON node CANCELLED AT 2025-11-24T22:14:50 DUE TO TIME LIMIT ***"]
    _, v = _verdict(lines)
    assert [f.id for f in v.failures] == ["job-time-limit"] and v.hang == "yes"


def test_wrapped_iteration_line_is_joined_and_glued_step_time_is_read():
    lines = ["x [2025-09-17 22:26:24] iteration        1/      25 | consumed samples:            8 | elapsed time per iterati",
             "on (ms): 69179.8 | learning rate: 1.5E-07 | global batch size:     8 | lm loss: 1.196929E+01",
             " | number of nan iterations:   0 |",
             "Step Time : 9.09s GPU utilization: 663.5MODEL_TFLOP/s/GPU [2025-12-22 15:18:33] iteration       2/      25 |"
             " elapsed time per iteration (ms): 9089.0 | lm loss: 8.1E+00 |"]
    log = parse_lines(lines)
    a, b = log.iterations
    assert a.elapsed_ms == 69179.8 and a.global_batch_size == 8 and a.nan_iterations == 0
    assert b.step_time_s == 9.09 and b.model_tflops_per_gpu == 663.5 and b.timestamp == "2025-12-22 15:18:33"


def test_bridge_trailing_field_without_bar_is_not_held_back():
    lines = [" [2025-01-01 00:00:00] iteration        1/      10 | elapsed time per iteration (ms): 10.0 | lm loss: 1.0",
             " [2025-01-01 00:00:01] iteration        2/      10 | elapsed time per iteration (ms): 11.0 | lm loss: 1.0"]
    log = parse_lines(lines)
    assert [it.elapsed_ms for it in log.iterations] == [10.0, 11.0]


# Frames of megatron/training/utils.py core_v0.16.1 l.517 get_batch_on_this_tp_rank -> l.560
# _broadcast_cu_seqlens (l.563 torch.tensor(n, ..., device=dev)), reached through
# megatron/core/full_cuda_graph.py's capture of the forward-backward step.
MLM_016_CU_SEQLENS = [
    "[rank0]: Traceback (most recent call last):",
    '[rank0]:   File "/w/megatron/core/full_cuda_graph.py", line 165, in __call__',
    "[rank0]:     FullCudaGraphWrapper.result[training_str] = self.forward_backward_func(",
    '[rank0]:   File "/w/pretrain_gpt.py", line 205, in forward_step',
    "[rank0]:     tokens, labels, loss_mask, attention_mask, position_ids = get_batch(data_iterator, vp_stage)",
    '[rank0]:   File "/w/megatron/training/utils.py", line 585, in get_batch_on_this_tp_rank',
    "[rank0]:     _broadcast_cu_seqlens(batch['cu_seqlens'])",
    '[rank0]:   File "/w/megatron/training/utils.py", line 563, in _broadcast_cu_seqlens',
    "[rank0]:     n_tensor = torch.tensor(n, dtype=torch.int64, device=dev)",
    "[rank0]: RuntimeError: Cannot copy between CPU and CUDA tensors during CUDA graph capture unless the CPU tensor is pinned",
]
# megatron/core/transformer/moe/token_dispatcher.py core_v0.19.0 l.913 _maybe_dtoh_and_synchronize
# (l.949 self.d2h_event.synchronize()) under full-iteration capture.
MOE_DROPLESS_DTOH = [
    "Traceback (most recent call last):",
    '  File "/s/megatron/core/full_cuda_graph.py", line 232, in __call__',
    '  File "/s/megatron/core/transformer/moe/token_dispatcher.py", line 655, in dispatch_preprocess',
    '  File "/s/megatron/core/transformer/moe/token_dispatcher.py", line 949, in _maybe_dtoh_and_synchronize',
    "    self.d2h_event.synchronize()",
    "torch.AcceleratorError: CUDA error: operation not permitted on an event last recorded in a capturing stream",
    "Search for `cudaErrorCapturedEvent' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.",
]


@pytest.mark.parametrize("lines, sig_id, parent", [
    (MLM_016_CU_SEQLENS, "mlm-016-full-iteration-cu-seqlens-broadcast", "capture-pageable-copy"),
    (MOE_DROPLESS_DTOH, "moe-dropless-full-iteration-dtoh-sync", "stream-capture-invalidated"),
])
def test_frame_refined_signatures(lines, sig_id, parent):
    log, v = _verdict(lines)
    assert parent in [f.id for f in log.failures]  # the line-level match
    ids = [f.id for f in v.failures]
    assert ids == [sig_id], ids  # refined by the frame it was raised in, parent replaced
    assert "raised in" in v.failures[0].evidence
    assert v.capture_status == "capture-failed"


def test_same_error_elsewhere_keeps_the_generic_cause():
    lines = MLM_016_CU_SEQLENS[:2] + MLM_016_CU_SEQLENS[-1:]
    _, v = _verdict(lines)
    assert [f.id for f in v.failures] == ["capture-pageable-copy"]


def test_log_num_zeros_in_optimizer_capture():
    lines = ["Traceback (most recent call last):",
             '  File "/s/megatron/core/optimizer/optimizer_cuda_graph.py", line 40, in capture',
             '  File "/s/megatron/core/optimizer/clip_grads.py", line 275, in count_zeros_fp32',
             "RuntimeError: CUDA error: operation not permitted when stream is capturing"]
    _, v = _verdict(lines)
    assert [f.id for f in v.failures] == ["optimizer-graph-num-zeros-sync"]
    assert "--log-num-zeros-in-grad" in v.failures[0].fix


def test_a_config_pasted_instead_of_a_log_is_refused(tmp_path):
    from skill_tools.errors import InputError
    from skill_tools.logs.parse import parse_path

    p = tmp_path / "u.log"
    p.write_text("model:\n  num_layers: 2\ntrain:\n  train_iters: 10\n")
    with pytest.raises(InputError, match="YAML"):
        parse_path(p)


# Megatron-LM core_v0.19.0 training_log line (megatron/training/training.py l.2844-2897), as printed.
_MLM_LINE = (" [2026-07-28 10:00:0{i}.000000] iteration        {i}/     100 | consumed samples:          128 | "
             "elapsed time per iteration (ms): 90{i}.0 | throughput per GPU (TFLOP/s/GPU): 431.5 | learning rate: "
             "6.000000E-06 | global batch size:   128 | lm loss: 8.990000E+00 | loss scale: 1.0 | grad norm: 1.500 | "
             "number of skipped iterations:   0 | number of nan iterations:   0 |")


@pytest.mark.parametrize("prefix", ["", "0: ", "[rank3]: "])
@pytest.mark.parametrize("width", [68, 80, 92, 100, 103, 120, 132, 160, 200])
def test_iteration_lines_wrapped_at_any_terminal_width_are_joined(prefix, width):
    """A paste from a terminal breaks each line every `width` characters: mid-key, mid-value, just
    after a bar (92), just before one; the launcher prefix is on the first piece only."""
    whole = [prefix + _MLM_LINE.format(i=i) for i in range(1, 6)]
    pieces = [ln[k:k + width] for ln in whole for k in range(0, len(ln), width)]
    want = [it.to_dict() for it in parse_lines(whole).iterations]
    got = [it.to_dict() for it in parse_lines(pieces).iterations]
    for d in want + got:
        d.pop("line_no")
    assert got == want and [d["elapsed_ms"] for d in got] == [901.0, 902.0, 903.0, 904.0, 905.0]


def test_step_time_glued_after_an_iteration_line_belongs_to_the_next():
    """Bridge prints Step Time before each iteration line; when the newline between an iteration
    line and the next Step Time is lost, the time is still the next iteration's."""
    lines = [_MLM_LINE.format(i=i) + f"Step Time : 0.9{i}s GPU utilization: 431.5MODEL_TFLOP/s/GPU" for i in (1, 2, 3)]
    its = parse_lines(lines).iterations
    assert [it.step_time_s for it in its] == [None, 0.91, 0.92]
    assert [it.elapsed_ms for it in its] == [901.0, 902.0, 903.0]


def test_log_that_stops_mid_run_says_hang_unknown_without_a_scheduler_line():
    """No Slurm 'CANCELLED ... DUE TO TIME LIMIT' line, no error, no 'after training is done': the
    verdict neither calls it a hang nor clean; it says the text stopped and the hang status is unknown."""
    log, v = _verdict([_MLM_LINE.format(i=i) for i in range(1, 6)])
    assert v.hang == "unknown" and not v.failures
    assert any("stops at iteration 5 of 100" in n and "hang: unknown" in n for n in v.notes)
    done = parse_lines([_MLM_LINE.format(i=i) for i in range(1, 6)] + ["[after training is done] datetime: x"])
    assert not any("stops at iteration" in n for n in build(done).notes)
