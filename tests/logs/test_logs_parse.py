"""Parsing real Megatron-LM / Bridge log excerpts and synthetic logs built from the format strings."""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import pytest

from skill_tools.errors import InputError
from skill_tools.logs.parse import parse_lines, parse_path
from skill_tools.logs.reader import LogFile, clean_lines, split_rank

FIX = Path(__file__).parents[1] / "fixtures" / "logs"
pytestmark = pytest.mark.legacy


def test_megatron_lm_pre016_line_all_fields_issue756():
    log = parse_path(FIX / "mlm_issue756_mixtral_moe.log")
    assert log.format == "megatron-lm-0.15-or-bridge"
    a, b = log.iterations
    assert (a.iteration, a.train_iters, a.timestamp) == (43, 100, "2024-04-06 02:59:36")
    assert a.elapsed_ms == 5444.9 and a.tflops_per_gpu == 239.8
    assert a.consumed_samples == 5504 and a.global_batch_size == 128
    assert a.learning_rate == pytest.approx(8.6e-06)
    assert a.losses == {"lm loss": 1.825991, "load_balancing_loss": 1.019746}
    assert a.loss_scale == 1.0 and a.grad_norm == 1.426 and a.num_zeros == 0.0
    assert a.skipped_iterations == 0 and a.nan_iterations == 0
    assert b.elapsed_ms == 5533.8


def test_core_v016_microsecond_timestamp_is_megatron_lm():
    log = parse_path(FIX / "synthetic_mlm_eager.log")
    assert log.format == "megatron-lm"
    assert len(log.iterations) == 30
    assert log.iterations[0].timestamp.endswith(".000758")


def test_bridge_line_without_trailing_bar_and_mtp_losses_issue2403():
    (it,) = parse_path(FIX / "bridge_issue2403_deepseek_v3.log").iterations
    assert it.global_batch_size == 16384  # overflows {:5d}
    assert it.losses == {"lm loss": 11.89217, "seq_load_balancing_loss": 1.000194, "mtp_1 loss": 11.89801}
    assert it.grad_norm == 224119.688
    assert it.nan_iterations == 0  # last field has no " |"


def test_bridge_markers_step_time_and_nemorun_prefix():
    log = parse_path(FIX / "bridge_cloudai_nemorun_prefix.log")
    assert log.format == "megatron-bridge"
    (it,) = log.iterations
    assert it.iteration == 50 and it.elapsed_ms == 9089.0
    assert it.step_time_s == 9.09 and it.model_tflops_per_gpu == 663.5


def test_glued_text_after_last_field_is_not_a_field_and_gb_memory():
    log = parse_path(FIX / "bridge_llama31_gb_memory.log")
    (it,) = log.iterations
    assert "Number of parameters in transformer layers in billions" not in it.fields
    assert it.losses == {"lm loss": 12.58695}
    (mem,) = log.memory
    assert mem.unit == "GB" and mem.rank == 0 and mem.after_iteration == 1
    assert mem.max_reserved_mib == pytest.approx(216.89e9 / 2**20)
    assert log.format == "megatron-bridge"


def test_glued_prefix_before_iteration_and_te_capture_time_pr643():
    log = parse_path(FIX / "bridge_pr643_te_capture_interleaved.log")
    (it,) = log.iterations
    assert it.iteration == 1 and it.timestamp == "2025-09-17 22:26:24"
    # the paste wrapped "iterati\non (ms)" and "...iterations:   0\n | number of nan": joined back
    assert it.elapsed_ms == 69179.8 and it.grad_norm == 19.643 and it.nan_iterations == 0
    assert [e.seconds for e in log.events if e.kind == "capture_end"] == [57.97806215286255]
    assert {m.rank for m in log.memory} == {3, 4}


def test_two_memory_reports_glued_on_one_line_and_timers():
    log = parse_path(FIX / "mlm_slurm_aws_memory_timers.log")
    ranks = sorted(m.rank for m in log.memory)
    assert ranks == [2, 5, 8, 9]
    assert all(m.max_allocated_mib is not None for m in log.memory)
    assert log.timers["model-and-optimizer-setup"] == [1022.97]
    assert log.timers["train/valid/test-data-iterators-setup"] == [292.0]


def test_raw_float_memory_pre016():
    log = parse_path(FIX / "ling_v2_pre016_mtp.log")
    (mem,) = log.memory
    assert mem.allocated_mib == pytest.approx(26222.7236328125)
    assert mem.max_reserved_mib == 66802.0


def test_checkpoint_timer_block_and_bridge_delete():
    log = parse_path(FIX / "bridge_qwen3_sft_checkpoint.log")
    assert log.timers == {"save-checkpoint": [109332.57]}
    assert any(e.kind == "deleted" for e in log.events)
    assert log.training_done


def test_rank_prefixes_torchrun_and_srun():
    assert split_rank("[rank3]: AssertionError: x") == (3, "AssertionError: x")
    assert split_rank("[default0]:hello") == (0, "hello")
    assert split_rank(" 6: text") == (6, "text")
    assert split_rank("1:  iteration        3/  286102 |") == (1, " iteration        3/  286102 |")
    assert split_rank(" [2026-01-01 00:00:00] iteration") == (None, " [2026-01-01 00:00:00] iteration")


def test_legacy_srun_line_without_timestamp_issue516():
    line = ("1:  iteration        3/  286102 | consumed samples:         1536 | elapsed time per iteration (ms): "
            "37143.0 | learning rate: 0.000E+00 | global batch size:   512 | loss scale: 1073741824.0 |")
    log = parse_lines([line])
    assert log.format == "megatron-lm-legacy"
    (it,) = log.iterations
    assert it.rank == 1 and it.elapsed_ms == 37143.0 and it.loss_scale == 1073741824.0


def test_ansi_and_carriage_returns_are_cleaned():
    lines = list(clean_lines(["\x1b[32mINFO:x:hello\x1b[0m\n", "a 10%\rb 20%\r[rank1]: c\n"]))
    assert [(ll.line_no, ll.rank, ll.text) for ll in lines] == [
        (1, None, "INFO:x:hello"), (2, None, "a 10%"), (2, None, "b 20%"), (2, 1, "c")]


def test_local_graph_log_with_ansi_and_tqdm():
    log = parse_path(FIX / "synthetic_mlm_local_graphs.log")
    ends = [e for e in log.events if e.kind == "capture_end"]
    assert ends[0].impl == "local" and ends[0].count == 48 and ends[0].seconds == 12.34
    assert ends[0].allocated_mib == pytest.approx(1.2 * 1024) and ends[0].reserved_mib == pytest.approx(2048)
    assert sum(e.kind == "capture_progress" for e in log.events) == 3


def test_nan_in_iteration_fields_is_kept_as_nan():
    log = parse_path(FIX / "synthetic_mlm_nan_after_capture.log")
    bad = [it for it in log.iterations if it.iteration >= 7]
    assert all(math.isnan(it.grad_norm) and it.nan_iterations == 1 for it in bad)
    assert bad[0].to_dict()["grad_norm"] == "nan"
    f = [f for f in log.failures if f.id == "nan-after-capture"][0]
    assert f.line_no == bad[0].line_no and f.count == len(bad)


def test_gzip_is_read_by_magic_not_name(tmp_path):
    plain = parse_path(FIX / "synthetic_mlm_full_iteration.log")
    gz = parse_path(FIX / "synthetic_mlm_full_iteration.log.gz")
    assert [i.elapsed_ms for i in gz.iterations] == [i.elapsed_ms for i in plain.iterations]
    renamed = tmp_path / "run.txt"
    renamed.write_bytes((FIX / "synthetic_mlm_full_iteration.log.gz").read_bytes())
    assert len(parse_path(renamed).iterations) == 30


def test_truncated_gzip_keeps_what_was_read(tmp_path):
    data = gzip.compress((FIX / "synthetic_mlm_eager.log").read_bytes())
    cut = tmp_path / "cut.log.gz"
    cut.write_bytes(data[: len(data) * 2 // 3])
    log = parse_path(cut)
    assert 0 < len(log.iterations) < 30
    assert any("gzip stream ends early" in w for w in log.warnings)


def test_truncated_mid_line_warns_and_keeps_partial_line():
    log = parse_path(FIX / "synthetic_truncated.log")
    assert any("truncated mid-line" in w for w in log.warnings)
    assert log.iterations[-1].iteration == 30 and log.iterations[-1].elapsed_ms is None


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("empty.log", b"", "empty file"),
        ("blank.log", b"\n\n  \n", "only blank lines"),
        ("config.yaml", b"model:\n  num_layers: 2\n  cuda_graph_impl: local\n", "a YAML document"),
        ("nb.ipynb", b'{"cells": [{"outputs": []}], "nbformat": 4}', "Jupyter notebook"),
        ("train.py", b"import torch\n\ndef main():\n    pass\n", "Python source"),
        ("binary.bin", (FIX / "synthetic_bad_binary.bin").read_bytes(), "binary"),
        ("bad.gz", b"\x1f\x8b\x08\x00garbage", "gzip"),
    ],
)
def test_bad_input_is_an_input_error(tmp_path, name, content, message):
    p = tmp_path / name
    p.write_bytes(content)
    with pytest.raises(InputError) as exc:
        LogFile(p) if name == "bad.gz" else parse_path(p)
    assert message in str(exc.value)
    assert str(p) in str(exc.value)


def test_plain_text_is_read_with_nothing_to_read(tmp_path):
    """Text that is neither a log nor a known non-log (config, notebook, source) is read, not refused."""
    p = tmp_path / "u.log"
    p.write_text("hello\nthis is not a training log\n")
    log = parse_path(p)
    assert log.format == "plain-text" and "nothing to read" in log.format_reason and log.failures == []


def test_mcore_logger_lines_with_a_custom_format_are_recognised():
    """A process that configures MCore's loggers itself (e.g. with timestamps) still parses."""
    lines = [
        "2026-12-02 10:00:01,123 INFO megatron.core.full_cuda_graph: Capture CUDA graph for training!!!",
        "2026-12-02 10:00:02,456 INFO megatron.core.full_cuda_graph: CUDA graph capture done for training!!!",
        "2026-12-02 10:00:03,000 INFO megatron.core.transformer.cuda_graphs: Rank 0: 12 graphable layers.",
    ]
    log = parse_lines(lines)
    assert log.format == "mcore-events"
    assert [(e.kind, e.impl, e.scope) for e in log.events] == [
        ("capture_start", "full_iteration", "training"), ("capture_end", "full_iteration", "training"),
        ("layers", "transformer_engine", None)]


def test_restart_from_checkpoint_keeps_later_line_and_warns():
    a = " [2026-01-01 00:00:00.000001] iteration        5/      10 | elapsed time per iteration (ms): 100.0 |"
    b = " [2026-01-01 00:10:00.000001] iteration        5/      10 | elapsed time per iteration (ms): 120.0 |"
    log = parse_lines([a, b])
    (it,) = log.iterations
    assert it.elapsed_ms == 120.0
    assert any("logged twice" in w for w in log.warnings)


HARNESS_INFERENCE_LOG = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "2026-12-02-inference-h200-block-worker.log"


@pytest.mark.skipif(not HARNESS_INFERENCE_LOG.exists(), reason="GPU harness inference log not in this checkout")
def test_real_h200_harness_inference_log():
    """Printed on the H200 by this project's GPU harness (MCore's own loggers + tqdm)."""
    from skill_tools.logs.steady import detect_capture

    log = parse_path(HARNESS_INFERENCE_LOG)
    assert log.format == "mcore-events" and log.failures == []
    cap = detect_capture(log)
    assert not cap.detected  # no training graph in an inference run
    assert (cap.inference_captures, cap.inference_graphs, cap.inference_seconds) == (1, 8, 1.32)
    assert cap.graph_memory_mib["inference_reserved"] == pytest.approx(314.0)


@pytest.mark.parametrize("gz", [False, True])
def test_overlong_line_is_capped_head_and_tail_kept(tmp_path, gz):
    import gzip

    from skill_tools.logs.reader import MAX_LINE_CHARS

    body = ("x" * (3 * MAX_LINE_CHARS) + "TAIL\n").encode()
    first = b" [2026-01-01 00:00:00.000001] iteration        1/      10 | elapsed time per iteration (ms): 10.0 |\n"
    data = first + body + first.replace(b"1/", b"2/")
    p = tmp_path / ("big.log.gz" if gz else "big.log")
    p.write_bytes(gzip.compress(data) if gz else data)
    lf = LogFile(p)
    lines = list(lf.lines())
    assert len(lines) == 3 and len(lines[1]) < MAX_LINE_CHARS + 100 and lines[1].rstrip().endswith("TAIL")
    assert any("longer than" in w for w in lf.warnings)
    log = parse_path(p)
    assert [it.iteration for it in log.iterations] == [1, 2]


def test_iterations_are_columns_with_numpy_access():
    lines = [f" [2026-01-01 00:00:{i:02d}.000001] iteration {i:8d}/      40 | elapsed time per iteration (ms): {10 + i}.0 |"
             f" global batch size:     8 | lm loss: {1.0 / i:.6E} | number of nan iterations:   0 |" for i in range(1, 31)]
    lines.insert(10, " [2026-01-01 00:00:10.000001] iteration        10/      40 | elapsed time per iteration (ms): 99.0 |"
                     " custom field: 3.0 | lm loss: 5.0 |")  # another schema in the middle
    log = parse_lines(lines)
    its = log.iterations
    assert len(its) == 30 and its[9].elapsed_ms == 99.0  # iteration 10 logged twice: the later line wins
    assert list(its.column("elapsed time per iteration (ms)")[:3]) == [11.0, 12.0, 13.0]
    assert its[0].losses == {"lm loss": 1.0} and its[0].global_batch_size == 8
    assert its[-1].to_dict()["timestamp"] == "2026-01-01 00:00:30.000001"
    assert any("logged twice" in w for w in log.warnings)


def test_block_reader_and_line_reader_agree_on_mixed_real_lines(tmp_path, monkeypatch):
    """Runs of iteration lines are read a block at a time (fastpath.py); every other line, in its
    place, line by line. Lines from the real fixtures shuffled into runs of iteration lines (launcher
    prefixes, NaN rows, cut and glued lines, schema changes) parse the same both ways."""
    import json
    import random

    from skill_tools.logs import fastpath

    pool = [p.read_text(errors="replace").split("\n")
            for p in sorted(FIX.glob("*.log")) + sorted((FIX / "corpus").glob("*.log"))]
    base = [line for line in (FIX / "synthetic_mlm_full_iteration.log").read_text().split("\n") if "iteration " in line]
    nan = base[-1].replace("number of nan iterations:   0", "number of nan iterations:   1")
    rnd = random.Random(15)
    out: list[str] = []
    while len(out) < 6000:
        r = rnd.random()
        if r < 0.5:
            prefix = rnd.choice(["", "", "0: ", " 12: ", "[rank3]: ", "[default1]:"])  # srun -l / torchrun
            out += [prefix + line for line in base] * rnd.randrange(1, 30)
        elif r < 0.55:
            out.append(nan)
        elif r < 0.6:
            out.append(rnd.choice(base)[: rnd.randrange(40, 300)])
        else:
            src = rnd.choice(pool)
            s = rnd.randrange(len(src))
            out += src[s:s + rnd.randrange(1, 40)]
    path = tmp_path / "mixed.log"
    path.write_text("\n".join(out) + "\n")

    def digest():
        log = parse_path(path)
        return json.dumps({"its": [i.to_dict() for i in log.iterations], "ranks": log.ranks,
                           "failures": [(f.id, f.line_no, f.count) for f in log.failures],
                           "format": log.format, "events": [(e.kind, e.line_no) for e in log.events],
                           "evidence": [(e.line_no, e.kind) for e in log.evidence.items]}, default=str)

    rows_in_blocks = []
    block_init = fastpath.Block.__init__

    def counting_init(self, rows):
        rows_in_blocks.append(len(rows))
        block_init(self, rows)

    monkeypatch.setattr(fastpath.Block, "__init__", counting_init)
    fast = digest()
    assert sum(rows_in_blocks) > 1000  # the block reader did read most iteration lines
    monkeypatch.setattr(fastpath.SchemaPatterns, "get", lambda self, keys: None)
    assert digest() == fast


@pytest.mark.parametrize("n", [1, 600])  # 600: long enough for the block reader
def test_absurd_numbers_and_dates_do_not_raise(n):
    line = (" [{ts}] iteration        {i}/     {t} | consumed samples:          128 | elapsed time per iteration "
            "(ms): 901.0 | lm loss: 8.990000E+00 | number of nan iterations:   0 |")
    ok = line.format(ts="2026-07-28 10:00:01.000000", i=1, t=100)
    for i, t, ts in (("1" * 25, "100", "2026-07-28 10:00:01.000000"), ("5", "9" * 30, "2026-07-28 10:00:01.000000"),
                     ("5", "10", "2026-13-45 99:99:99.000000"), ("6", "10", "0000-00-00 00:00:00")):
        log = parse_lines([ok] * n + [line.format(ts=ts, i=i, t=t)] * n)
        for it in log.iterations:
            it.to_dict()
        assert log.iterations[0].iteration == 1
