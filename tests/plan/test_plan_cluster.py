"""``bench --config FILE --plan-cluster``: one job per variant as the user's own launch command,
each Megatron-LM command judged by Megatron-LM's own parser and validation at its world size."""

from __future__ import annotations

import json
import shlex

import pytest

from skill_tools.cli import main

LLAMA = "examples/megatron_lm_llama3_8b.sh"


def _cluster(repo, capsys, config: str) -> dict:
    assert main(["bench", "--config", str(repo / config) if "/" in config else config, "--plan-cluster",
                 "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_one_megatron_lm_job_per_variant_differing_only_in_graph_flags(repo, capsys):
    doc = _cluster(repo, capsys, LLAMA)
    # eager, the config's own full iteration (also recommend's proposal), recommend's next step
    assert [j["variant"] for j in doc["jobs"]] == ["eager", "full_iteration", "te:attn+mlp"]
    eager = doc["jobs"][0]["flags"]
    assert "--cuda-graph-impl" not in eager and "--no-check-for-nan-in-loss-and-grad" in eager
    for job in doc["jobs"][1:]:
        assert job["flags"][:len(eager)] == eager
        assert job["torchrun"][:5] == ["torchrun", "--nnodes", "1", "--nproc-per-node", "8"]
        assert job["srun"][0] == "srun" and "$SLURM_JOB_NODELIST" in job["srun"][-1]
    assert doc["read_logs"][0] == "skill-tools logs logs/eager.log logs/full_iteration.log"


@pytest.mark.parametrize("index", range(3))
def test_every_printed_megatron_lm_command_passes_megatron_lms_own_validation(repo, capsys, monkeypatch, real_mlm,
                                                                              index):
    from conftest import validated_megatron_lm_args as _validated_args

    doc = _cluster(repo, capsys, LLAMA)
    job = doc["jobs"][index]
    args, unknown = real_mlm.parse_known_args(job["flags"])
    assert unknown == []
    args, _ = _validated_args(monkeypatch, job["flags"], world_size=doc["world_size"])
    assert (args.context_parallel_size, args.data_parallel_size, args.num_layers) == (2, 4, 32)
    impl = {"eager": "none", "full_iteration": "full_iteration"}.get(job["variant"], "transformer_engine")
    assert args.cuda_graph_impl == impl
    # the srun line runs the same words
    assert shlex.join(job["flags"]) in job["srun"][-1]


def test_a_bridge_recipe_prints_run_script_jobs(capsys, repo):
    doc = _cluster(repo, capsys, "llama3_8b")
    cmds = [j["command"] for j in doc["jobs"]]
    assert all(c[:2] == ["python", "scripts/performance/run_script.py"] and "-mr" in c for c in cmds)
    assert cmds[0][-2:] == ["--cuda_graph_impl", "none"]
    # Bridge's run_script spells full iteration local + full_iteration (its perf presets' spelling)
    assert ["--cuda_graph_impl", "local", "--cuda_graph_scope", "full_iteration"] == cmds[1][-4:]
    assert ["--cuda_graph_impl", "transformer_engine", "--cuda_graph_scope", "attn,mlp"] == cmds[2][-4:]


def test_a_bridge_yaml_prints_hydra_override_jobs_judged_by_the_hydra_reader(repo, capsys):
    from skill_tools.config.readers import read_text

    doc = _cluster(repo, capsys, "examples/bridge_qwen3_30b_a3b.yaml")
    assert doc["world_size"] == 8
    job = doc["jobs"][-1]
    assert job["variant"] == "te:attn+moe_router+moe_preprocess"
    overrides = job["command"][job["command"].index("--config-file") + 2:]
    cfg = read_text("\n".join(overrides), fmt="hydra")
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine"
    assert cfg.get("model.cuda_graph_modules") == ["attn", "moe_router", "moe_preprocess"]
    assert cfg.get("rng.te_rng_tracker") is True


def test_the_cluster_plan_prints_for_a_model_the_engines_cannot_build(capsys):
    assert main(["bench", "--config", "nemotronh_8b", "--plan-cluster"]) == 0
    out = capsys.readouterr().out
    assert "run_script.py -m nemotronh -mr nemotronh_8b" in out
