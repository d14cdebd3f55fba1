"""Megatron Bridge as an oracle: its own ConfigContainer.validate() and GPTModelProvider graph asserts.

Where ``megatron.bridge`` cannot be imported (not installed, or no Transformer Engine: Bridge's
package import reaches ``peft/lora_layers.py``, which imports ``transformer_engine.pytorch``), the
Bridge-backed tests skip with the oracle's own one-line reason, and the tests of the skip path run.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from skill_tools.config.era import resolve_era
from skill_tools.config.model import CanonicalConfig
from skill_tools.rules import bridge_oracle
from skill_tools.rules.engine import check

ROOT = Path(__file__).resolve().parents[2]
AVAILABLE, REASON = bridge_oracle.availability()
needs_bridge = pytest.mark.skipif(not AVAILABLE, reason=f"Bridge oracle unavailable: {REASON}")


def _bridge(nested: dict) -> CanonicalConfig:
    return CanonicalConfig.from_nested({**nested, "train": {"train_iters": 10}}, fmt="yaml")


def _errors(cfg: CanonicalConfig) -> set[str]:
    return {f.rule for f in check(cfg, resolve_era()) if f.severity == "error"}


def test_availability_is_one_line_naming_bridge():
    assert "\n" not in REASON and "megatron-bridge" in REASON
    if not AVAILABLE:
        verdict = bridge_oracle.run({"model": {"cuda_graph_impl": "transformer_engine"}, "rng": {"te_rng_tracker": True}})
        assert verdict == {"ran": False, "reason": REASON}


def test_validate_oracle_reports_bridge_next_to_mcore(capsys):
    from skill_tools.cli import main

    code = main(["validate", str(ROOT / "examples" / "python_assignments_local_scoped.py"), "--oracle", "--json"])
    data = json.loads(capsys.readouterr().out)
    bridge = data["oracle"]["bridge"]
    assert code == 1 and "bridge" in data["oracle"]
    if AVAILABLE:
        assert bridge["ran"] and not bridge["ok"] and bridge["rule"] == "bridge-local-scoped" and bridge["agrees"]
    else:
        assert bridge == {"ran": False, "reason": REASON}
    main(["validate", str(ROOT / "examples" / "python_assignments_local_scoped.py"), "--oracle"])
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("  oracle: Megatron Bridge")]
    assert len(lines) == 1, lines


def test_bare_model_section_is_not_sent_to_bridge():
    from skill_tools.api import validate

    report = validate({"cuda_graph_impl": "local"}, oracle=True)
    assert report.oracle["bridge"]["ran"] is False and "not a Bridge-shaped input" in report.oracle["bridge"]["reason"]


# -- the catalog, corrected from what Bridge's utils/cuda_graph.py does (no Bridge import needed) --------


def test_catalog_bridge_local_scoped_speaks_before_mcore_and_without_scopes():
    # validate_cuda_graph_configuration runs before model.finalize(): a bad scope name does not hide it
    assert "bridge-local-scoped" in _errors(_bridge({"model": {"cuda_graph_impl": "local", "cuda_graph_scope": ["router"]}}))
    assert "bridge-local-scoped" in _errors(_bridge({"model": {"cuda_graph_impl": "local"}}))
    ok = _errors(_bridge({"model": {"cuda_graph_impl": "local", "cuda_graph_scope": ["full_iteration"],
                                    "use_te_rng_tracker": True},
                          "rerun_state_machine": {"check_for_nan_in_loss": False}}))
    assert "bridge-local-scoped" not in ok
    inference = _bridge({"model": {"cuda_graph_impl": "local", "inference_cuda_graph_scope": "block"}})
    assert "bridge-local-scoped" not in _errors(inference)


def test_catalog_bridge_drops_scopes_when_impl_is_none():
    cfg = _bridge({"model": {"cuda_graph_modules": ["attention"]}})
    assert "scope-unknown" not in _errors(cfg)
    bare = CanonicalConfig.from_nested({"cuda_graph_modules": ["attention"]}, flat_section="model")
    assert "scope-unknown" in _errors(bare)  # a bare TransformerConfig still refuses it


@pytest.mark.parametrize("era_version, fix", [
    ("0.19.2", {"model.cuda_graph_impl": "full_iteration", "model.cuda_graph_modules": []}),
    ("0.16.1", {"model.cuda_graph_impl": "local", "model.cuda_graph_scope": ["full_iteration"]}),
])
def test_catalog_warns_that_bridge_discards_a_scope_without_impl(era_version, fix):
    """megatron-core 0.18+ alone converts cuda_graph_scope=[full_iteration] (impl none) into the
    full-iteration impl; Bridge clears the scope first, so nothing is captured."""
    cfg = _bridge({"model": {"cuda_graph_scope": ["full_iteration"]}})
    found = [f for f in check(cfg, resolve_era(era_version)) if f.rule == "bridge-scope-without-impl"]
    assert len(found) == 1 and found[0].severity == "warning" and found[0].fix == fix
    assert not [f for f in check(_bridge({"model": {"cuda_graph_impl": "transformer_engine",
                                                    "cuda_graph_modules": ["attn"]}}), resolve_era(era_version))
                if f.rule == "bridge-scope-without-impl"]


@needs_bridge
def test_bridge_really_discards_the_scope_when_impl_is_none():
    from skill_tools.rules.bridge_oracle import build

    container, _, _ = build(_bridge({"model": {"cuda_graph_scope": ["full_iteration"]},
                                     "rerun_state_machine": {"check_for_nan_in_loss": False}}))
    from megatron.bridge.utils.cuda_graph import validate_cuda_graph_configuration

    validate_cuda_graph_configuration(container.model)  # what validate() calls first (training/config.py l.1260)
    assert container.model.cuda_graph_impl == "none" and not container.model.cuda_graph_scope


# -- Bridge itself ---------------------------------------------------------------------------------------


@needs_bridge
@pytest.mark.parametrize("nested, ok, rule", [
    ({"model": {"cuda_graph_impl": "transformer_engine", "cuda_graph_modules": ["attn"]}}, False, "te-rng-tracker-required"),
    # validate() copies rng.te_rng_tracker into model.use_te_rng_tracker (training/config.py l.1276-1277)
    ({"model": {"cuda_graph_impl": "transformer_engine", "cuda_graph_modules": ["attn"]}, "rng": {"te_rng_tracker": True}},
     True, None),
    ({"model": {"cuda_graph_impl": "full_iteration", "use_te_rng_tracker": True}}, False, "nan-check-full-iteration"),
    ({"model": {"cuda_graph_impl": "local", "cuda_graph_scope": ["full_iteration"], "use_te_rng_tracker": True},
      "rerun_state_machine": {"check_for_nan_in_loss": False}}, True, None),
    ({"model": {"cuda_graph_impl": "local", "cuda_graph_modules": ["attn"], "use_te_rng_tracker": True}}, False,
     "bridge-local-scoped"),
])
def test_bridge_verdicts(nested, ok, rule):
    verdict = bridge_oracle.run(_bridge(nested))
    assert verdict["ran"] and verdict["ok"] is ok and verdict["rule"] == rule, verdict
    assert bridge_oracle.agrees(_errors(_bridge(nested)) & bridge_oracle.checkable_rules(), verdict)


@needs_bridge
def test_hydra_overrides_go_through_bridges_parser():
    from skill_tools.config.readers import read_text

    sweep = read_text("model.cuda_graph_impl=transformer_engine\nmodel.cuda_graph_modules=attn,mlp\n", fmt="hydra")
    verdict = bridge_oracle.run(sweep)
    assert verdict["ran"] and not verdict["ok"] and verdict["stage"] == "overrides", verdict
    listed = read_text("model.cuda_graph_impl=transformer_engine\nmodel.cuda_graph_modules=[attn,mlp]\n"
                       "rng.te_rng_tracker=true\n", fmt="hydra")
    assert bridge_oracle.run(listed)["ok"]


@needs_bridge
def test_differential_against_bridge_agrees():
    from skill_tools.rules import bridge_differential

    res = bridge_differential.run(resolve_era(), count=60, seed=random.Random(18).randrange(1000))
    assert res.count == 60 and res.bridge_errors > 10
    assert not res.disagreements, res.disagreements[:3]
    assert not res.unmatched_bridge_errors, res.unmatched_bridge_errors
