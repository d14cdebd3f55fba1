"""A required environment companion counts where the answer writes its environment down: an answer
whose export block leaves ``NCCL_GRAPH_REGISTER=0`` out and only mentions it in prose fails, as the
user runs the block; an answer with no written environment may still name it in prose."""

from __future__ import annotations

from one_answer import score_one

CAUSE = "Calling run_script.py directly bypasses the performance launcher's PerfEnvPlugin, which sets this env.\n\n"
BLOCK = ("```bash\nexport PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,graph_capture_record_stream_reuse:True\n"
         "export TORCH_NCCL_AVOID_RECORD_STREAMS=0\nexport NCCL_NVLS_ENABLE=0\n{extra}```\n\n")


def test_a_companion_left_out_of_the_written_env_fails():
    row = score_one("expandable-segments-env", CAUSE + BLOCK.format(extra="") +
                    "Older guides pair expandable segments with `NCCL_GRAPH_REGISTER=0`; that was a workaround.\n")
    assert not row["passed"]
    assert any("only mentioned in prose" in f for f in row["fatal"]), row["fatal"]


def test_the_companion_in_the_written_env_passes():
    row = score_one("expandable-segments-env", CAUSE + BLOCK.format(extra="export NCCL_GRAPH_REGISTER=0\n") +
                    "`NCCL_GRAPH_REGISTER=0` must accompany expandable segments.\n")
    assert row["passed"], row["fatal"]


def test_prose_alone_still_names_the_companion():
    row = score_one("expandable-segments-env", CAUSE + "Export `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,"
                    "graph_capture_record_stream_reuse:True`, `NCCL_GRAPH_REGISTER=0`, "
                    "`TORCH_NCCL_AVOID_RECORD_STREAMS=0` and `NCCL_NVLS_ENABLE=0` before torchrun.\n")
    assert row["passed"], row["fatal"]
