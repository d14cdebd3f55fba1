"""The headroom ranges wrap Megatron-LM's own functions, count only the timed steps, and name
what removes each part (CPU: the framework's functions are stood in for by plain callables)."""

from __future__ import annotations

import types

import pytest

from skill_tools.harness.engines.megatron_lm.headroom import REMEDIES, TOP_LEVEL, Headroom, install, uninstall


@pytest.fixture
def headroom():
    h = Headroom()
    yield h
    uninstall(h)


def test_ranges_time_only_active_steps_and_the_forward_backward_argument(headroom):
    from megatron.core.optimizer import optimizer as opt

    calls = []

    def train_step(fsf, it, model, optimizer, sched, config, forward_backward_func, iteration=None):
        calls.append(forward_backward_func())
        training.training_log()
        return "out"

    training = types.SimpleNamespace(train_step=train_step, training_log=lambda: calls.append("log"))
    h = headroom
    install(training, h)
    assert training.train_step(*range(6), lambda: "fb") == "out"  # inactive: nothing timed
    assert dict(h.ms) == {}
    h.active, h.steps = True, 1
    training.train_step(*range(6), lambda: "fb")
    assert set(h.ms) == {"train_step", "forward_backward", "training_log"}
    report = h.report()
    assert set(report["host_ms_per_step"]) == {"train_step", "forward_backward", "training_log", "other"}
    assert set(report["remedies"]) <= set(REMEDIES)
    assert calls == ["fb", "log", "fb", "log"]
    assert hasattr(opt.MixedPrecisionOptimizer.step, "__wrapped__")  # the optimizer's own step, wrapped


def test_nested_calls_of_one_range_count_once():
    h = Headroom()
    h.active = True
    inner = h.timed("optimizer.step", lambda: None)
    outer = h.timed("optimizer.step", inner)
    outer()
    assert h._depth["optimizer.step"] == 0 and "optimizer.step" in h.ms


def test_uninstall_puts_the_frameworks_functions_back(headroom):
    from megatron.core.distributed.distributed_data_parallel import DistributedDataParallel
    from megatron.core.optimizer import optimizer as opt
    from megatron.core.rerun_state_machine import RerunStateMachine

    before = (opt.MixedPrecisionOptimizer.__dict__["step"], DistributedDataParallel.__dict__["zero_grad_buffer"],
              RerunStateMachine.__dict__["should_run_forward_backward"])
    stat = lambda x, group=None: x  # noqa: E731
    training = types.SimpleNamespace(train_step=lambda *a, **k: None, training_log=lambda: None,
                                     logical_and_across_model_parallel_group=stat)
    install(training, headroom)
    assert hasattr(DistributedDataParallel.__dict__["zero_grad_buffer"], "__wrapped__")
    assert hasattr(training.logical_and_across_model_parallel_group, "__wrapped__")
    uninstall(headroom)
    after = (opt.MixedPrecisionOptimizer.__dict__["step"], DistributedDataParallel.__dict__["zero_grad_buffer"],
             RerunStateMachine.__dict__["should_run_forward_backward"])
    assert after == before and training.logical_and_across_model_parallel_group is stat


def test_a_timed_step_runs_from_one_train_step_call_to_the_next():
    """``iteration`` covers train_step, training_log and the loop between; ``loop`` is what they leave,
    ``other`` what train_step's named parts leave; steps outside the window are not counted."""
    h = Headroom()
    h.iteration_start(False)  # warm-up call: not timed
    for _ in range(3):
        h.iteration_start(True)
        h.ms["train_step"] += 5.0
        h.ms["forward_backward"] += 1.0
        h.ms["stat_reductions"] += 2.0
        h.ms["training_log"] += 0.5
    h.iteration_start(False)  # the first profiled call closes the third timed step
    h.ms["iteration"] = 3 * 7.0  # stand in for the wall clock
    report = h.report()
    per = report["host_ms_per_step"]
    assert report["steps"] == 3 and h.active is False
    assert per["other"] == pytest.approx(2.0) and per["loop"] == pytest.approx(1.5)
    assert set(TOP_LEVEL) <= set(REMEDIES) and "loop" in REMEDIES


def test_no_timed_step_reports_nothing():
    h = Headroom()
    h.iteration_start(False)
    h.iteration_start(False)
    assert h.report() == {}


def _event(name, start, end):
    return types.SimpleNamespace(name=name, time_range=types.SimpleNamespace(start=start, end=end))


def test_syncs_go_to_the_innermost_range_and_a_cuda_only_profile_totals_them():
    from skill_tools.harness.engines.megatron_lm.headroom import sync_ms_by_range

    with_ranges = types.SimpleNamespace(events=lambda: [
        _event("headroom::train_step", 0, 10_000), _event("headroom::stat_reductions", 6_000, 9_000),
        _event("cudaStreamSynchronize", 6_500, 8_500), _event("cudaMemcpy", 1_000, 1_500),
        _event("cudaEventSynchronize", 11_000, 11_200)])
    assert sync_ms_by_range(with_ranges) == {"stat_reductions": 2.0, "train_step": 0.5, "outside": 0.2}
    cuda_only = types.SimpleNamespace(events=lambda: [_event("cudaStreamSynchronize", 0, 1_000),
                                                      _event("cudaMemcpy", 2_000, 2_250)])
    assert sync_ms_by_range(cuda_only) == {"all ranges": 1.25}
    assert sync_ms_by_range(types.SimpleNamespace(events=lambda: [])) == {}


def test_the_report_is_made_once_when_the_sidecar_is_written(tmp_path, monkeypatch):
    """No report work on the timed steps: the sidecar writer asks the headroom for it at exit."""
    import json

    from skill_tools.harness.engines import observe

    monkeypatch.setattr(observe, "_STATE", {**observe._STATE, "substitutions": []})
    h = Headroom()
    h.iteration_start(True)
    h.ms["train_step"] += 4.0
    h.iteration_start(False)
    observe._STATE["_headroom"] = h
    observe._write_sidecar(tmp_path / "s.json")
    side = json.loads((tmp_path / "s.json").read_text())
    assert side["headroom"]["steps"] == 1 and side["headroom"]["host_ms_per_step"]["train_step"] == 4.0
    assert "_headroom" not in observe._STATE
