"""The catalog's Bridge-only rules against what Megatron Bridge 0.6.2 itself did on the H200.

``benchmarks/run-bridge-h200.sh rules`` ran Bridge's own ``pretrain`` (engine ``bridge``) three
times with a configuration each rule forbids; the logs and the engine's sidecars are committed in
``benchmarks/results/2026-12-03-bridge-rules-h200/``. Each run must have been stopped by Bridge with
the message the rule's ``bridge_message`` names, in the phase the catalog says, before any graph was
captured; and the catalog must flag the same configuration as an error.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from skill_tools.config.era import resolve_era
from skill_tools.config.readers import read_text
from skill_tools.rules.catalog import load
from skill_tools.rules.engine import check

RUN = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "2026-12-03-bridge-rules-h200"
#: run name -> (rule id, the graph overrides that run added to the engine's tiny GPT)
RUNS = {
    "te-scoped-no-rng-tracker": ("te-rng-tracker-required",
                                 ["model.cuda_graph_impl=transformer_engine", "model.cuda_graph_modules=[attn,mlp]",
                                  "rng.te_rng_tracker=false", "model.use_te_rng_tracker=false"]),
    "full-iteration-nan-check-on": ("nan-check-full-iteration",
                                    ["model.cuda_graph_impl=full_iteration", "rng.te_rng_tracker=true",
                                     "model.use_te_rng_tracker=true"]),
    "local-per-layer": ("bridge-local-scoped",
                        ["model.cuda_graph_impl=local", "model.cuda_graph_modules=[]", "rng.te_rng_tracker=true",
                         "model.use_te_rng_tracker=true"]),
}


def _rule(rule_id: str):
    return load().by_id(rule_id)


@pytest.mark.parametrize("name", sorted(RUNS))
def test_bridge_stopped_the_run_with_the_rules_message(name):
    rule_id, _ = RUNS[name]
    side = json.loads((RUN / f"{name}.sidecar.json").read_text())
    with gzip.open(RUN / f"{name}.log.gz", "rt", encoding="utf-8") as fh:
        log = fh.read()
    assert not side["ok"] and side["phase"] == "pretrain" and side["captures"] == 0
    assert side["versions"]["megatron_bridge"] == "0.6.2" and side["versions"]["gpu"]
    rule = _rule(rule_id)
    assert rule.matches_bridge(side["exception"]), (rule.bridge_message, side["exception"])
    assert rule.matches_bridge(log)


@pytest.mark.parametrize("name", sorted(RUNS))
def test_the_catalog_flags_the_same_configuration(name):
    rule_id, overrides = RUNS[name]
    cfg = read_text("\n".join(overrides), fmt="hydra", source=name)
    found = {f.rule for f in check(cfg, resolve_era("0.19.2")) if f.severity == "error"}
    assert rule_id in found, found
