"""Python that picks its spelling by megatron-core version is read one era per branch: each era's
config holds only its own branch (plus the code outside the test), never both spellings merged."""

from __future__ import annotations

import ast

import pytest

from skill_tools.evaluation.era_branches import CURRENT, LEGACY, era_of_test, split_by_era
from skill_tools.evaluation.extract import extract_config

GATED = '''```python
from packaging.version import Version
import megatron.core


def enable(cfg):
    if Version(megatron.core.__version__) < Version("0.18"):
        cfg.model.cuda_graph_impl = "local"
        cfg.model.cuda_graph_scope = ["full_iteration"]
    else:
        cfg.model.cuda_graph_impl = "full_iteration"
        cfg.model.cuda_graph_scope = None
        cfg.model.cuda_graph_modules = []
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False
```'''


@pytest.mark.parametrize("test,era", [
    ('Version(v) < Version("0.18")', LEGACY), ('v < "0.18.0"', LEGACY), ('v <= (0, 17)', LEGACY),
    ('Version(v) >= Version("0.18")', CURRENT), ('Version("0.18") <= Version(v)', CURRENT), ('v > "0.17"', CURRENT),
    ('hasattr(cfg.model, "cuda_graph_modules")', CURRENT), ('not hasattr(cfg.model, "cuda_graph_modules")', LEGACY),
    ('v < "0.20"', None), ('x > 3', None), ('hasattr(cfg, "fp8")', None), ('torch.__version__ >= "2.5"', None),
])
def test_version_tests(test, era):
    assert era_of_test(ast.parse(test, mode="eval").body) == era


@pytest.mark.parametrize("era,impl,has_modules", [("legacy", "local", False), ("current", "full_iteration", True)])
def test_each_era_reads_its_own_branch(era, impl, has_modules):
    cfg = extract_config(GATED, era=era).config
    assert cfg.get("model.cuda_graph_impl") == impl
    assert cfg.has("model.cuda_graph_modules") == has_modules
    assert cfg.get("ddp.check_for_nan_in_grad") is False  # the code after the test holds for both


def test_code_without_a_version_test_is_left_whole():
    assert split_by_era("cfg.model.cuda_graph_impl = 'local'\nif fast:\n    cfg.x = 1\n") == []
    assert split_by_era("def broken(:\n") == []
