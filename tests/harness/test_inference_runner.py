"""bench --mode inference, CPU side: refusal before the GPU, statistics, parity, reports."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from skill_tools.config.era import era_for
from skill_tools.errors import InputError
from skill_tools.harness.inference import parity as P
from skill_tools.harness.inference import report as RP
from skill_tools.harness.inference import results as RS
from skill_tools.harness.inference import runner as R

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"


def _steps(decode_ms: float, n: int, graph: bool, prefill_ms: float = 30.0) -> list[dict]:
    out = [{"ms": prefill_ms, "forward_ms": prefill_ms / 2, "decode": False, "graph": False}]
    out += [{"ms": decode_ms + 0.01 * (i % 5), "forward_ms": decode_ms / 2, "decode": True, "graph": graph}
            for i in range(n)]
    return out


def _raw(scope: str, decode_ms: float, tokens: dict[int, list[list[int]]], graphs: int = 0) -> dict:
    return {
        "scope": scope,
        "workload": {"name": "tiny-gpt", "attention": "flash-attn", "decode_tokens": 8},
        "env": {"gpu": "NVIDIA H200", "torch": "2.11.0", "cuda": "13.0"},
        "capture": {"captured": graphs > 0, "capture_s": 1.0 if graphs else None,
                    "graphs": {"graphs": graphs}, "graph_batch_shapes": ["x"] * (graphs > 0)},
        "memory": {"allocated_bytes": 1},
        "batches": [{"batch_size": bs, "tokens": toks, "tokens_stable_across_trials": True,
                     "trials": [_steps(decode_ms * (1 + bs / 64), 7, graphs > 0) for _ in range(2)]}
                    for bs, toks in tokens.items()],
    }


TOKENS = {1: [[5, 6, 7, 8]], 4: [[5, 6, 7, 8], [1, 2, 3, 4], [9, 9, 9, 9], [0, 1, 0, 1]]}


def _args(**kw) -> argparse.Namespace:
    base = dict(mode="inference", batch_sizes="1,2", decode_tokens=8, inference_scope="none,block", trials=1,
                steps=30, json=True, out=None, workload="dense", size="tiny", timeout=60.0, name=None)
    base.update(kw)
    return argparse.Namespace(**base)


# ------------------------------------------------------------------------------ bad input


def test_unknown_scope_is_refused_with_the_choices():
    with pytest.raises(InputError, match=r"unknown inference scope 'graph'.*none, layer, block"):
        R.parse_scopes("none,graph", era_for("0.19.2"))


def test_deprecated_full_iteration_inference_names_the_new_spelling():
    with pytest.raises(InputError, match=r"deprecated.*inference_cuda_graph_scope='block'"):
        R.parse_scopes("full_iteration_inference", era_for("0.19.2"))


@pytest.mark.parametrize("version, mentions_fii", [("0.17.0", True), ("0.16.1", False)])
def test_legacy_era_has_no_inference_scope(version, mentions_fii):
    with pytest.raises(InputError) as exc:
        R.parse_scopes("none,block", era_for(version))
    text = str(exc.value)
    assert "added in 0.18" in text and "megatron-core>=0.18" in text
    assert ("full_iteration_inference" in text) is mentions_fii


def test_eager_is_always_measured_first():
    assert R.parse_scopes("block,layer", era_for("0.19.2")) == ["none", "layer", "block"]


def test_refusal_happens_before_any_gpu_work(monkeypatch):
    touched = []
    monkeypatch.setattr(R, "require_gpu", lambda: touched.append("gpu"))
    monkeypatch.setattr(R, "run_variant", lambda *a, **k: touched.append("run"))
    for bad in (dict(inference_scope="none,bogus"), dict(mcore_version="0.17.0"),
                dict(batch_sizes="1,x"), dict(batch_sizes="0"), dict(decode_tokens=1),
                dict(workload="moe_droppad"), dict(size="large")):
        with pytest.raises(InputError):
            R.run_inference_bench(_args(**bad))
    assert touched == []


def test_rule_catalog_refuses_an_impl_that_forbids_the_scope(monkeypatch):
    pytest.importorskip("skill_tools.rules.engine")
    # The variants themselves pass the catalog ...
    R.check_rules(["none", "layer", "block"], era_for("0.19.2"))
    # ... and a block scope under transformer_engine is refused with the fix.
    monkeypatch.setattr(R, "scope_config", lambda scope: _te_config(scope))
    with pytest.raises(InputError, match=r"inference-scope-impl.*fix: .*cuda_graph_impl='local'"):
        R.check_rules(["block"], era_for("0.19.2"))


def _te_config(scope):
    from skill_tools.config.model import CanonicalConfig

    cfg = CanonicalConfig()
    cfg.set("model.cuda_graph_impl", "transformer_engine")
    cfg.set("model.inference_cuda_graph_scope", scope)
    return cfg


def test_cli_exits_2_for_a_bad_scope(capsys):
    pytest.importorskip("skill_tools.commands.bench")
    from skill_tools.cli import main

    assert main(["bench", "--mode", "inference", "--inference-scope", "none,whole"]) == 2
    assert "unknown inference scope 'whole'" in capsys.readouterr().err


def test_dry_run_prints_the_plan(capsys):
    assert R.run_inference_bench(_args(dry_run=True, inference_scope="layer")) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["scopes"] == ["none", "layer"] and plan["workload"] == "tiny-gpt"
    assert plan["runs"] == ["none", RS.SAME_SHAPE_EAGER, "layer"] and plan["same_shape_eager"]
    assert plan["variants"][1]["values"] == {"model.cuda_graph_impl": "local",
                                             "model.inference_cuda_graph_scope": "layer"}


# ------------------------------------------------------------------------------ statistics and parity


def test_dry_run_without_the_same_shape_control(capsys):
    assert R.run_inference_bench(_args(dry_run=True, json=False, no_same_shape_eager=True)) == 0
    out = capsys.readouterr().out
    assert out.startswith("would run none, block ×") and RS.SAME_SHAPE_EAGER not in out


def test_speedup_parity_and_replay_counts():
    bad = {1: TOKENS[1], 4: [TOKENS[4][0], [1, 2, 7, 4], *TOKENS[4][2:]]}
    raw = {"none": _raw("none", 10.0, TOKENS), "block": _raw("block", 2.0, bad, graphs=4)}
    variants = {v["name"]: v for v in RS.build_variants(raw)}
    b1 = variants["block-b1"]
    assert b1["decode_steps"] == 14 and b1["decode_steps_graph_replayed"] == 14
    assert b1["speedup_vs_eager"]["ci95_low"] <= 5.0 <= b1["speedup_vs_eager"]["ci95_high"] + 0.05
    assert b1["tokens_match_eager"] is True and b1["first_mismatch"] is None
    assert b1["tokens_per_s"] == pytest.approx(1000 / b1["decode_step_ms"]["median"])
    assert variants["block-b4"]["tokens_match_eager"] is False
    assert variants["block-b4"]["first_mismatch"] == {"request": 1, "position": 2, "eager": 3, "graphed": 7}
    assert len(b1["raw_decode_step_ms"]) == 14  # prefill steps are not decode samples
    assert variants["none-b1"]["decode_steps_graph_replayed"] == 0


def test_same_shape_eager_control_separates_replay_from_shape_rounding(tmp_path):
    """Graph tokens differ from plain eager but equal eager padded to the graph buckets: the
    difference is the padded shape, not replay, and the verdict says so."""
    shifted = {1: TOKENS[1], 4: [TOKENS[4][0], [1, 2, 7, 4], *TOKENS[4][2:]]}
    raw = {"none": _raw("none", 10.0, TOKENS), RS.SAME_SHAPE_EAGER: _raw("none", 10.5, shifted),
           "block": _raw("block", 2.0, shifted, graphs=4)}
    raw[RS.SAME_SHAPE_EAGER]["workload"]["decode_padding"] = "graph buckets"
    result = RS.assemble(raw, [], "2026-12-02")
    by = {v["name"]: v for v in result["variants"]}
    control = by[f"{RS.SAME_SHAPE_EAGER}-b4"]
    assert control["inference_scope"] == "none" and control["decode_padding"] == "graph buckets"
    assert control["tokens_match_eager"] is False and "tokens_match_same_shape_eager" not in control
    assert by["block-b4"]["tokens_match_eager"] is False
    assert by["block-b4"]["tokens_match_same_shape_eager"] is True and by["block-b4"]["first_mismatch_same_shape"] is None
    assert by["none-b4"]["decode_padding"] == "token rounder"
    assert result["all_graphed_tokens_match_eager"] is False
    assert result["all_graphed_tokens_match_same_shape_eager"] is True
    md = RP.render_markdown(result)
    assert "| none (graph shapes) | 4 |" in md and "same shape: yes" in md
    assert "Every graphed variant matches it: yes." in md
    # A replay error shows up against the same-shape control too.
    raw["block"] = _raw("block", 2.0, TOKENS | {4: [[0, 0, 0, 0]] * 4}, graphs=4)
    assert RS.assemble(raw, [], "2026-12-02")["all_graphed_tokens_match_same_shape_eager"] is False
    # Without the control the verdict is unknown, not True.
    del raw[RS.SAME_SHAPE_EAGER]
    assert RS.assemble(raw, [], "2026-12-02")["all_graphed_tokens_match_same_shape_eager"] is None


def test_worker_args_of_the_same_shape_control():
    argv = R.worker_args(RS.SAME_SHAPE_EAGER, [1, 4], 8, 1, 1, "tiny-gpt", Path("x.json"))
    assert argv[:2] == ["--scope", "none"] and argv[-1] == "--eager-graph-shapes"
    assert "--eager-graph-shapes" not in R.worker_args("block", [1], 8, 1, 1, "tiny-gpt", Path("x.json"))


def test_first_mismatch_on_length_difference():
    assert P.first_mismatch([[1, 2]], [[1, 2, 3]]) == {"request": 0, "position": 2, "eager": None, "graphed": 3}
    assert P.first_mismatch([[1]], [[1], [2]])["reason"].startswith("2 outputs")


def test_shape_sensitivity_finds_batch_dependent_tokens():
    toks = {1: [[5, 6, 7, 8]], 4: [[5, 6, 0, 8], [1, 2, 3, 4], [9, 9, 9, 9], [0, 1, 0, 1]]}
    sens = RS.shape_sensitivity({"block": _raw("block", 2.0, toks, graphs=4), "none": _raw("none", 9.0, TOKENS)})
    assert sens["none"] == []
    assert sens["block"] == [{"request": 0, "batch_size": 4, "vs_batch_size": 1, "position": 2}]


def test_falloff_reports_first_peak_and_thresholds():
    vs = [{"inference_scope": "block", "batch_size": b, "speedup_vs_eager": {"point": p}}
          for b, p in ((1, 10.0), (8, 6.0), (32, 4.5), (128, 1.5))]
    assert RS.falloff(vs)["block"] == {"first_batch": 1, "first_speedup": 10.0, "peak_speedup": 10.0,
                                      "below_half_at": 32, "below_2x_at": 128}


def test_capture_seconds_from_mcore_log_line(tmp_path):
    log = tmp_path / "w.log"
    log.write_text("x\n> built cuda graph(s) in 1.36 sec. Mempool: reserved 0 bytes, allocated 0 bytes.\n")
    assert R.capture_from_log(log) == 1.36
    assert R.capture_from_log(tmp_path / "missing.log") is None


def test_outputs_json_and_markdown(tmp_path):
    raw = {"none": _raw("none", 10.0, TOKENS), "layer": _raw("layer", 3.0, TOKENS, graphs=8),
           "block": _raw("block", 2.0, TOKENS, graphs=4)}
    result = RS.assemble(raw, [], "2026-12-02")
    paths = RP.write_outputs(result, tmp_path)
    assert Path(paths["json"]).name == "2026-12-02-inference-h200.json"
    doc = json.loads(Path(paths["json"]).read_text())
    assert doc["kind"] == "inference" and doc["schema_version"] == RS.SCHEMA_VERSION
    assert doc["all_graphed_tokens_match_eager"] is True
    md = Path(paths["md"]).read_text()
    assert "| block | 4 |" in md and "| layer | 1 |" in md and "Fall-off, block scope" in md


def test_rebuild_from_worker_files(tmp_path):
    for scope, ms in (("none", 10.0), ("block", 2.0)):
        (tmp_path / f"inference-tiny-gpt-{scope}.json").write_text(json.dumps(_raw(scope, ms, TOKENS, 4 * (scope != "none"))))
    (tmp_path / "inference-tiny-gpt-block.log").write_text("> built cuda graph(s) in 0.50 sec.\n")
    doc = R.rebuild(tmp_path, "tiny-gpt", {"gpu": "NVIDIA H200"}, "2026-12-02")
    assert {v["name"] for v in doc["variants"]} == {"none-b1", "none-b4", "block-b1", "block-b4"}
    assert next(v for v in doc["variants"] if v["name"] == "block-b1")["capture_s_from_log"] == 0.5
    with pytest.raises(InputError):
        R.rebuild(tmp_path / "nothing", "tiny-gpt", {}, "2026-12-02")


# ------------------------------------------------------------------------------ committed results


@pytest.mark.parametrize("name", ["2026-12-02-inference-h200.json", "2026-12-02-inference-tiny-moe-h200.json"])
def test_committed_results_follow_the_schema(name):
    doc = json.loads((RESULTS / name).read_text())
    assert doc["kind"] == "inference" and doc["schema_version"] == 1
    assert set(doc["env"]) >= {"gpu", "driver", "torch", "megatron_core", "transformer_engine", "cuda"}
    keys = {"name", "inference_scope", "batch_size", "captured", "graphs_count", "capture_s", "decode_step_ms",
            "tokens_per_s", "speedup_vs_eager", "tokens_match_eager", "first_mismatch", "memory",
            "raw_decode_step_ms"}
    for v in doc["variants"]:
        assert keys <= set(v)
        assert set(v["decode_step_ms"]) >= {"n", "median", "mean", "p10", "p90", "ci95_low", "ci95_high"}
        assert len(v["raw_decode_step_ms"]) == v["decode_step_ms"]["n"]
        if v["inference_scope"] != "none":
            assert v["captured"] and v["decode_steps_graph_replayed"] == v["decode_steps"]
    # Measured with the same-shape eager control: every graphed token equals eager at equal shapes.
    assert doc["all_graphed_tokens_match_same_shape_eager"] is True
    assert any(v["name"].startswith(RS.SAME_SHAPE_EAGER) for v in doc["variants"])


# ------------------------------------------------------------------------------ parity definitions
# The worker outputs below are fake inputs (made here) fed to the real aggregation code.


def _with_logprobs(raw: dict, lp: float = -0.5) -> dict:
    for b in raw["batches"]:
        b["logprobs"] = [[lp] * len(t) for t in b["tokens"]]
    return raw


def test_batch_invariant_runs_compare_with_batch_invariant_eager_at_natural_shapes():
    flipped = {1: [[5, 6, 7, 8]], 4: [[5, 6, 7, 8], [1, 2, 3, 4], [9, 9, 0, 9], [0, 1, 0, 1]]}
    raw = {"none": _raw("none", 10.0, TOKENS), "block": _raw("block", 2.0, flipped, graphs=4),
           "none-batch-invariant": _raw("none", 30.0, flipped), "block-batch-invariant": _raw("block", 9.0, flipped, 4)}
    result = RS.assemble(raw, [], "2026-12-02")
    bi = next(v for v in result["variants"] if v["name"] == "block-batch-invariant-b4")
    assert bi["batch_invariant"] and bi["inference_scope"] == "block" and bi["tokens_match_eager"] is True
    assert bi["speedup_vs_eager"]["point"] > 3  # against batch-invariant eager (30 ms), not plain eager
    assert result["all_graphed_tokens_match_batch_invariant_eager"] is True
    assert result["all_graphed_tokens_match_eager"] is False  # plain block differs from plain eager
    assert set(result["speedup_falloff"]) == {"block"}  # batch-invariant speed is not reported as fall-off
    assert "block [batch-invariant]" in RP.render_markdown(result)


def test_first_mismatch_carries_the_logprob_deltas():
    eager = _with_logprobs(_raw("none", 10.0, TOKENS))
    graphed = _with_logprobs(_raw("block", 2.0, {1: [[5, 6, 9, 8]], 4: TOKENS[4]}, graphs=4), lp=-0.5)
    graphed["batches"][0]["logprobs"] = [[-0.5, -0.52, -0.7, -0.5]]
    v = next(v for v in RS.assemble({"none": eager, "block": graphed}, [], "d")["variants"] if v["name"] == "block-b1")
    mm = v["first_mismatch"]
    assert (mm["request"], mm["position"], mm["eager"], mm["graphed"]) == (0, 2, 7, 9)
    assert mm["eager_logprob"] == -0.5 and mm["graphed_logprob"] == -0.7
    assert mm["max_abs_logprob_delta_before"] == pytest.approx(0.02)
    assert v["max_abs_logprob_delta"] == pytest.approx(0.2)


def test_batch_invariant_scopes_add_runs_and_worker_flags():
    era = era_for("0.19.2")
    assert R.batch_invariant_runs("block", era) == ["none-batch-invariant", "block-batch-invariant"]
    assert R.batch_invariant_runs("", era) == []
    argv = R.worker_args("none-graph-shapes-batch-invariant", [1], 4, 1, 0, "tiny-hybrid", Path("x.json"))
    assert argv[argv.index("--scope") + 1] == "none" and "--eager-graph-shapes" in argv and "--batch-invariant" in argv


def test_unavailable_workload_writes_a_results_file_that_says_why(tmp_path, monkeypatch, capsys):
    """A Mamba hybrid this machine cannot build: refused with the reasons before any worker starts."""
    from skill_tools.harness.inference import workloads as IW

    if not IW.unavailable(IW.WORKLOADS["tiny-hybrid"]):
        pytest.skip("this machine can build the Mamba hybrid")
    pytest.importorskip("torch")
    from skill_tools.harness.inference import worker as W

    calls = []

    def fake_isolated_run(scope, argv, log_path, timeout_s):  # the real worker, without a subprocess
        calls.append(scope)
        rc = W.main(argv)
        return {"scope": scope, "ok": rc == 0, "returncode": rc, "timed_out": False, "error_class": None,
                "evidence": None, "log_path": str(log_path), "tail": None}

    monkeypatch.setattr(R, "require_gpu", lambda: None)
    monkeypatch.setattr(R, "run_variant", fake_isolated_run)
    (tmp_path / "logs").mkdir()
    rc = R.run_inference_bench(_args(workload="tiny-hybrid", out=str(tmp_path), inference_scope="none,layer,block",
                                     json=False, date="2026-12-02"))
    assert rc == R.EXIT_FINDINGS and calls == []  # refused before any GPU process
    doc = json.loads((tmp_path / "2026-12-02-inference-tiny-hybrid-unmeasured.json").read_text())
    assert doc["status"] == "unavailable" and any("mamba" in r for r in doc["unavailable"])
    assert "not measured" in capsys.readouterr().out
