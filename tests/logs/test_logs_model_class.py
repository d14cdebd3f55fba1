"""Log signatures for the hybrid / fp32-residual model class, matched on the text megatron-core itself
raises: each message is produced by calling the installed megatron-core code (no GPU needed, the
checks fire before any kernel), not typed into the test."""

from __future__ import annotations

import types

import pytest

from skill_tools.logs.parse import diagnose_lines

pytest.importorskip("torch")
pytest.importorskip("megatron.core")


def _diagnosed(exc: BaseException) -> list[tuple[str, str | None]]:
    lines = ["Traceback (most recent call last):", '  File "x.py", line 1, in <module>',
             f"[rank0]: {type(exc).__name__}: {exc}"]
    return [(f.id, f.rule) for f in diagnose_lines(lines)]


def test_mamba_layer_without_mamba_ssm():
    from megatron.core.ssm import mamba_mixer

    if mamba_mixer.HAVE_MAMBA_SSM:
        pytest.skip("mamba_ssm imports here")
    with pytest.raises(ImportError) as err:
        mamba_mixer.MambaMixer(config=None, submodules=None, d_model=8)
    assert _diagnosed(err.value) == [("mamba-ssm-unimportable", None)]


def test_mamba_inference_kernel_versions(monkeypatch):
    from megatron.core.ssm import mamba_mixer

    try:
        ok, reason = mamba_mixer._check_mamba_sequence_packing_support(for_inference_not_training=True)
    except ImportError as exc:  # causal_conv1d not installed: the version lookup imports it
        assert _diagnosed(exc) == [("mamba-kernel-packages", None)]
    else:
        if ok:
            pytest.skip("new enough causal_conv1d and mamba_ssm here")
        assert _diagnosed(AssertionError(reason)) == [("mamba-kernel-packages", None)]
    monkeypatch.setattr(mamba_mixer, "is_causal_conv1d_min_version", lambda v: False)
    ok, reason = mamba_mixer._check_mamba_sequence_packing_support(for_inference_not_training=True)
    assert not ok and "1.5.3.post1" in reason
    assert _diagnosed(AssertionError(reason)) == [("mamba-kernel-packages", None)]
    monkeypatch.setattr(mamba_mixer, "is_causal_conv1d_min_version", lambda v: True)
    monkeypatch.setattr(mamba_mixer, "is_mamba_min_version", lambda v: False)
    ok, reason = mamba_mixer._check_mamba_sequence_packing_support(for_inference_not_training=True)
    assert _diagnosed(AssertionError(reason)) == [("mamba-kernel-packages", None)]


@pytest.mark.parametrize("static", [False, True])
def test_gated_delta_net_at_inference(static):
    import torch

    try:
        from megatron.core.ssm.gated_delta_net.gdn import GatedDeltaNet
    except ImportError:
        from megatron.core.ssm.gated_delta_net import GatedDeltaNet
    fake = types.SimpleNamespace(sp_size=1, cp_size=1, config=types.SimpleNamespace(sequence_parallel=False))
    context = types.SimpleNamespace(is_static_batching=lambda: static)
    with pytest.raises((AssertionError, NotImplementedError)) as err:
        GatedDeltaNet.forward(fake, torch.zeros(2, 1, 8), None, inference_context=context)
    assert _diagnosed(err.value) == [("gdn-no-inference", "inference-gdn-layers")]


def test_transformer_engine_dtype_refusal():
    # The f-string of transformer_engine/pytorch/module/base.py set_activation_dtype (v2.18 l.1431-1434),
    # as it prints for an fp32 residual stream reaching TELayerNormColumnParallelLinear.
    exc = TypeError("Data types for parameters must match when outside of autocasted region. "
                    "Found input dtype: torch.float32 and 'layer_norm_weight' dtype: torch.bfloat16")
    assert _diagnosed(exc) == [("te-input-dtype-mismatch", "fp32-residual-dtype-mismatch")]
