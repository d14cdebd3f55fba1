"""The two capture failures Megatron's own training loop hit on the H200, as rules: each fires where
a committed real-loop run failed and stays silent where one captured."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from skill_tools.config.era import era_for
from skill_tools.config.readers import read_text
from skill_tools.rules.engine import check

pytestmark = pytest.mark.legacy

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
LOOP_RULES = {"full-iteration-dropless-moe", "mlm-full-iteration-batch-broadcast"}


def _fired(flags: str, version: str) -> set[str]:
    cfg = read_text(flags, "megatron_lm")
    return {f.rule for f in check(cfg, era_for(version)) if f.severity == "error"} & LOOP_RULES


FULL_016 = "--cuda-graph-impl local --cuda-graph-scope full_iteration --te-rng-tracker --no-check-for-nan-in-loss-and-grad"
FULL_019 = "--cuda-graph-impl full_iteration --te-rng-tracker --no-check-for-nan-in-loss-and-grad"
MOE = "--num-experts 8 --moe-router-topk 2 --moe-token-dispatcher-type alltoall --moe-grouped-gemm"


def test_016_full_iteration_in_megatron_lms_loop_is_an_error():
    assert _fired(FULL_016, "0.16.1") == {"mlm-full-iteration-batch-broadcast"}
    assert _fired(FULL_016, "0.17.0") == {"mlm-full-iteration-batch-broadcast"}


def test_018_and_019_only_with_flags_that_broadcast_cu_seqlens():
    assert _fired(FULL_019, "0.19.2") == set()
    assert _fired(FULL_019 + " --sft", "0.19.2") == {"mlm-full-iteration-batch-broadcast"}
    assert _fired(FULL_019 + " --dataloader-inter-document-masking", "0.19.2") == {"mlm-full-iteration-batch-broadcast"}
    assert _fired(FULL_019 + " --hybrid-context-parallel", "0.18.0") == {"mlm-full-iteration-batch-broadcast"}


def test_per_layer_graphs_do_not_capture_get_batch():
    assert _fired("--cuda-graph-impl local --cuda-graph-scope attn mlp --te-rng-tracker", "0.16.1") == set()
    assert _fired("--cuda-graph-impl transformer_engine --cuda-graph-modules attn mlp --te-rng-tracker", "0.19.2") == set()


def test_bridge_configs_are_not_judged_by_megatron_lms_get_batch():
    yaml = ("model:\n  cuda_graph_impl: local\n  cuda_graph_scope: [full_iteration]\n  use_te_rng_tracker: true\n"
            "rng:\n  te_rng_tracker: true\nrerun_state_machine:\n  check_for_nan_in_loss: false\n")
    cfg = read_text(yaml, "yaml")
    assert not {f.rule for f in check(cfg, era_for("0.16.1"))} & {"mlm-full-iteration-batch-broadcast"}


def test_dropless_moe_full_iteration_is_an_error_and_drop_and_pad_is_not():
    assert _fired(f"{FULL_019} {MOE}", "0.19.2") == {"full-iteration-dropless-moe"}
    droppad = f"{FULL_019} {MOE} --moe-expert-capacity-factor 1.0 --moe-pad-expert-input-to-capacity"
    assert _fired(droppad, "0.19.2") == set()
    capacity_only = f"{FULL_019} {MOE} --moe-expert-capacity-factor 1.0"
    assert _fired(capacity_only, "0.19.2") == {"full-iteration-dropless-moe"}


def test_hybridep_with_rank_capacity_is_upstreams_static_path_and_not_an_error():
    """0.18+ HybridEP with moe_expert_rank_capacity_factor pre-sizes dispatch without a host sync
    (token_dispatcher.py l.1158-1171 @core_v0.19.0); the rule must not call it a capture failure."""
    hybridep = ("--num-experts 8 --moe-router-topk 2 --moe-token-dispatcher-type flex "
                "--moe-flex-dispatcher-backend hybridep --use-transformer-engine-op-fuser --moe-grouped-gemm")
    assert _fired(f"{FULL_019} {hybridep} --moe-expert-rank-capacity-factor 1.5", "0.19.2") == set()
    assert _fired(f"{FULL_019} {hybridep}", "0.19.2") == {"full-iteration-dropless-moe"}
    deepep = hybridep.replace("hybridep", "deepep")
    assert _fired(f"{FULL_019} {deepep} --moe-expert-rank-capacity-factor 1.5", "0.19.2") == {"full-iteration-dropless-moe"}


def test_the_fix_is_the_scoped_te_graph_that_ran():
    cfg = read_text(f"{FULL_019} {MOE}", "megatron_lm")
    finding = next(f for f in check(cfg, era_for("0.19.2")) if f.rule == "full-iteration-dropless-moe")
    assert finding.fix["model.cuda_graph_impl"] == "transformer_engine"
    assert finding.fix["model.cuda_graph_modules"] == ["attn", "moe_router", "moe_preprocess"]


def _real_runs():
    for path in sorted(RESULTS.glob("2026-12-03-training-megatron-lm-*.json")):
        doc = json.loads(path.read_text())
        version = doc["env"]["megatron_core"]
        for v in doc["variants"]:
            if v.get("graph_flags"):
                flags = shlex.join(doc["workload"]["model_flags"] + v["graph_flags"])
                yield pytest.param(flags, version, v["error_class"], id=f"{path.stem}:{v['name']}")


@pytest.mark.parametrize("flags,version,error_class", list(_real_runs()))
def test_rules_predict_the_real_loops_capture_failures(flags, version, error_class):
    """Ground truth: the committed runs of Megatron-LM's own loop (H200)."""
    assert bool(_fired(flags, version)) == (error_class is not None), error_class
