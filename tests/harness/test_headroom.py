"""The headroom ranges wrap Megatron-LM's own functions, count only the profiled steps, and name
what removes each part (CPU: the framework's functions are stood in for by plain callables)."""

from __future__ import annotations

import types

import pytest

from skill_tools.harness.engines.megatron_lm.headroom import REMEDIES, Headroom, install


@pytest.fixture
def restore_optimizer_methods():
    from megatron.core.optimizer import optimizer as opt

    saved = {(c, m): c.__dict__[m] for c in (opt.MixedPrecisionOptimizer, opt.FP32Optimizer, opt.ChainedOptimizer)
             for m in ("step", "prepare_grads", "clip_grad_norm") if m in c.__dict__}
    yield
    for (cls, meth), fn in saved.items():
        setattr(cls, meth, fn)


def test_ranges_time_only_active_steps_and_the_forward_backward_argument(restore_optimizer_methods):
    from megatron.core.optimizer import optimizer as opt

    calls = []

    def train_step(fsf, it, model, optimizer, sched, config, forward_backward_func, iteration=None):
        calls.append(forward_backward_func())
        training.training_log()
        return "out"

    training = types.SimpleNamespace(train_step=train_step, training_log=lambda: calls.append("log"))
    h = Headroom()
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
