"""apply: era-correct keys, prerequisites, refusal, comment-preserving atomic rewrite."""

import os

import pytest

from skill_tools.config.era import era_for
from skill_tools.config.readers import read_text
from skill_tools.errors import InputError
from skill_tools.overrides import REMOVE, plan, rewrite_yaml, write_atomic


@pytest.mark.legacy
@pytest.mark.parametrize("version,impl_key", [("0.19.2", "model.cuda_graph_modules"), ("0.16.1", "model.cuda_graph_scope")])
def test_era_correct_keys(version, impl_key):
    p = plan(read_text("model:\n  num_layers: 2\n"), "transformer_engine", "attn,mlp", era_for(version))
    assert p.ok and p.changes[impl_key] == ["attn", "mlp"] and p.changes["rng.te_rng_tracker"] is True


@pytest.mark.legacy
def test_full_iteration_per_era():
    cur = plan(read_text("model:\n  num_layers: 2\n"), "local", "full_iteration", era_for("0.19.2")).changes
    old = plan(read_text("model:\n  num_layers: 2\n"), "local", "full_iteration", era_for("0.16.1")).changes
    assert cur["model.cuda_graph_impl"] == "full_iteration" and cur["rerun_state_machine.check_for_nan_in_loss"] is False
    assert old["model.cuda_graph_impl"] == "local" and old["model.cuda_graph_scope"] == ["full_iteration"]


def test_illegal_result_is_refused_with_findings():
    p = plan(read_text("model:\n  num_layers: 2\n"), "transformer_engine", "moe_router", era_for("0.19.2"))
    assert not p.ok and "moe-scope-needs-moe-model" in {f.rule for f in p.findings}
    with pytest.raises(InputError):
        plan(read_text("model:\n  num_layers: 2\n"), "transformer_engine", "full_iteration", era_for("0.19.2"))


def test_legacy_removes_current_era_keys():
    p = plan(read_text("model:\n  cuda_graph_modules: [attn]\n"), "transformer_engine", "attn", era_for("0.16.1"))
    assert p.changes["model.cuda_graph_modules"] == REMOVE and p.ok


def test_rewrite_keeps_comments_and_order():
    text = "# top\nmodel:\n  num_layers: 2  # keep me\n  cuda_graph_impl: none\ntrain:\n  micro_batch_size: 1\n"
    out = rewrite_yaml(text, {"model.cuda_graph_impl": "transformer_engine", "rng.te_rng_tracker": True})
    assert "# top" in out and "# keep me" in out and out.index("model:") < out.index("train:") < out.index("rng:")


def test_atomic_write_leaves_original_on_failure(tmp_path, monkeypatch):
    target = tmp_path / "c.yaml"
    target.write_text("original\n")

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        write_atomic(target, "new\n")
    assert target.read_text() == "original\n" and [p.name for p in tmp_path.iterdir()] == ["c.yaml"]


def test_yaml_rewrite_does_not_rewrap_long_lines(tmp_path):
    """Only the graph keys change: a long `_target_` line elsewhere stays byte-identical."""
    from skill_tools.cli import main

    long_target = "megatron.core.distributed.distributed_data_parallel_config.DistributedDataParallelConfig"
    src = tmp_path / "cfg.yaml"
    src.write_text(
        "model:\n  num_layers: 2\n  hidden_size: 64\n  num_attention_heads: 4\n  cuda_graph_impl: none\n"
        f"ddp:\n  _target_: {long_target}\n  use_distributed_optimizer: true\n"
    )
    out = tmp_path / "fixed.yaml"
    assert main(["apply", str(src), "--impl", "transformer_engine", "--scope", "attn", "--out", str(out)]) == 0
    assert f"  _target_: {long_target}\n" in out.read_text()
