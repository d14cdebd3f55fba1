"""Shared pytest setup: GPU tests skip cleanly where no CUDA device is present."""

from __future__ import annotations

import functools
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent


@functools.lru_cache(maxsize=1)
def _gpu_reason() -> str | None:
    try:
        import torch
    except Exception as exc:  # pragma: no cover - torch is a runtime dependency
        return f"torch not importable: {exc}"
    if not torch.cuda.is_available():
        return "no CUDA GPU on this machine (gpu tests run on a GPU host: pytest -m gpu)"
    return None


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "gpu" in item.keywords:
            reason = _gpu_reason()
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture
def repo() -> pathlib.Path:
    return REPO
