"""Errors quoted in prose are hedged; short real pastes keep their confident cause (logs/quoting.py).

Texts are cut from public pages and threads of the dev set (benchmarks/logs_corpus/dev_quoted.jsonl.gz):
each quoted one is a page, docs table or sentence that names an error; each paste is a run's output,
sometimes with a sentence around it.
"""

from __future__ import annotations

import pytest

from skill_tools.logs.parse import parse_lines
from skill_tools.logs.quoting import PASTE_MARKER, is_prose, where_quoted
from skill_tools.logs.verdict import build


def _verdict(text: str):
    return build(parse_lines(text.strip("\n").splitlines()))


QUOTED = {
    "sentence": "All 3 runs failed with RuntimeError: \"accessing tensor output of CUDAGraphs that has been "
                "overwritten by a subsequent run\". Exit code 1 on every run.",
    "article": "The torch.OutOfMemoryError is raised when the caching allocator cannot find a free block.",
    "backticks": "Before this change, a capture-time allocation failure could enter the selective cached-block "
                 "release retry path and fail with `cudaErrorStreamCaptureInvalidated`.",
    "table": "| 1 | `ncclUnhandledCudaError` | unhandled cuda error | A CUDA call failed underneath NCCL. |",
    "bare-name": "cudaError_cudaErrorStreamCaptureUnsupported\n\nThe operation is not permitted when the stream is "
                 "capturing.",
    "page": """
RuntimeError: CUDA error: operation not permitted when stream is capturing
For Humans
Quick fix guide
Stop — don't try these:
- Wrap every operation in a separate graph
- Disable CUDA Graphs and accept the performance loss
Do this instead:
Pre-allocate all tensors before graph capture
""",
}

PASTES = {
    "one-line": ("RuntimeError: CUDA error: an illegal memory access was encountered.\ncould you give me detailed "
                 "solution?", "illegal-memory-access"),
    "marker-inline": ("I have changed the train.py here into this. And I meet this error : RuntimeError: CUDA error: "
                      "an illegal memory access was encountered", "illegal-memory-access"),
    "marker-lines": ("""
Hi
However, I'm experiencing a problem when I try to run Kyutai TTS. The issue occurs randomly.
CUDA error: operation not permitted when stream is capturing
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1
thx in advance
""", "stream-capture-invalidated"),
    "exception-chain": ("Exception: Capture cuda graph failed: CUDA error: capturing stream has unjoined work",
                        "capture-unjoined-stream"),
    "log-prefix-sentence": ("[E ProcessGroupNCCL.cpp:455] Some NCCL operations have failed or timed out. terminate "
                            "called after throwing an instance of 'std::runtime_error' what(): NCCL error: remote "
                            "process exited or there was a network error, NCCL version 2.14.3", "nccl-error"),
    "fenced": ("""
Now the run says:
```
The capture failed with cudaErrorStreamCaptureInvalidated after the allreduce
```
""", "stream-capture-invalidated"),
    "glog-quotes": ("host-6:56890:56890 [0] enqueue.cc:267 NCCL WARN Cuda failure 'dependency created on uncaptured "
                    "work in another stream'", "capture-uncaptured-dependency"),
}


@pytest.mark.parametrize("name", sorted(QUOTED))
def test_quoted_error_is_hedged(name):
    v = _verdict(QUOTED[name])
    assert v.failures, "a quoted error is still named (hedged), not dropped"
    assert all(f.severity == "warning" and f.quoted for f in v.failures if f.id != "incomplete-traceback")
    f = next(f for f in v.failures if f.quoted)
    assert f.cause.startswith("The text quotes `") and "If you hit it:" in f.cause
    assert any("quoted in prose" in n for n in v.notes)
    assert f.to_dict()["quoted"] is True


@pytest.mark.parametrize("name", sorted(PASTES))
def test_real_paste_keeps_its_confident_cause(name):
    text, cause = PASTES[name]
    v = _verdict(text)
    f = next(f for f in v.failures if f.id == cause)
    assert f.severity == "error" and not f.quoted
    assert not f.cause.startswith("The text quotes")


def test_paste_markers_are_first_person_reports_not_any_pronoun():
    assert PASTE_MARKER.search("When I run the training script, I ran into an instance of 'std::runtime_error'")
    assert PASTE_MARKER.search("The error I have is `Test NCCL failure common.cu:777 'unhandled cuda error'`.")
    assert PASTE_MARKER.search("we hit the following error sequence on AWS, with two nodes.")
    assert not PASTE_MARKER.search("If you've trained a model in PyTorch, you've hit this error:")
    assert not PASTE_MARKER.search("I could only suggest updating drivers or seeing if there is a more detailed log")
    assert not PASTE_MARKER.search("We add a small RAII wrapper that detects `cudaErrorStreamCaptureInvalidated`")


def test_error_lines_are_output_not_prose():
    assert is_prose("This error occurs because the GPU does not have enough free memory to allocate the tensors.")
    assert not is_prose("ncclRemoteError: A call failed possibly due to a network error or a remote process exiting.")
    assert not is_prose("torch.distributed.DistBackendError: NCCL error in: x.hpp:268, remote process exited or there")
    assert where_quoted("Warp CUDA error 900: operation not permitted when stream is capturing (in function f)",
                        len("Warp CUDA error 900: ")) is None
    assert where_quoted("'false INTERNAL ASSERT FAILED at \"a.h\":73, please report a bug to PyTorch. Unknown CUDA "
                        "graph CaptureStatus5399'", 84) is None


def test_long_logs_are_never_read_as_pages():
    lines = ["This is a sentence of words that describes what the program is doing now."] * 6000
    lines.append("RuntimeError: CUDA error: an illegal memory access was encountered")
    v = build(parse_lines(lines))
    assert any(f.id == "illegal-memory-access" and f.severity == "error" for f in v.failures)


def test_a_quoted_capture_error_is_no_capture_of_a_run():
    v = _verdict(QUOTED["backticks"])
    assert v.capture_status == "mentioned"
    paste = _verdict(PASTES["marker-lines"][0])
    assert paste.capture_status == "capture-failed"
