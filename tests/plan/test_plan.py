"""``bench --config FILE --dry-run`` / ``precheck --config FILE``: the plan names every field it took
from the user's config (key or flag and line) and every one it changed (rule and meaning), and
refuses what cannot be measured with the field, the value and what would work (exit 2)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from skill_tools.cli import main
from skill_tools.plan import build

LLAMA = "examples/megatron_lm_llama3_8b.sh"
QWEN = "examples/bridge_qwen3_30b_a3b.yaml"
SHARED = "examples/hydra_qwen15_moe_shared_expert.txt"

#: Fields each example sets itself, and the spelling its origin must name.
TAKEN = {
    LLAMA: {"num_layers": "--num-layers", "hidden_size": "--hidden-size", "ffn_hidden_size": "--ffn-hidden-size",
            "num_query_groups": "--num-query-groups", "kv_channels": "--kv-channels", "seq_length": "--seq-length",
            "vocab_size": "--vocab-size", "activation": "--swiglu", "normalization": "--normalization",
            "untie_embeddings": "--untie-embeddings-and-output-weights", "add_bias_linear": "--disable-bias-linear",
            "position_embedding_type": "--position-embedding-type", "layout.cp": "--context-parallel-size",
            "layout.nproc": "torchrun --nproc-per-node 8"},
    QWEN: {"num_layers": "model.num_layers", "num_experts": "model.num_moe_experts",
           "moe_router_topk": "model.moe_router_topk", "moe_ffn_hidden_size": "model.moe_ffn_hidden_size",
           "num_query_groups": "model.num_query_groups", "kv_channels": "model.kv_channels",
           "qk_layernorm": "model.qk_layernorm", "seq_length": "model.seq_length",
           "moe_token_dispatcher_type": "model.moe_token_dispatcher_type", "activation": "model.activation_func",
           "layout.ep": "model.expert_model_parallel_size", "layout.tp": "model.tensor_model_parallel_size",
           "precision": "mixed_precision"},
    SHARED: {"moe_shared_expert_intermediate_size": "model.moe_shared_expert_intermediate_size",
             "num_experts": "model.num_moe_experts", "moe_router_topk": "model.moe_router_topk",
             "layout.ep": "model.expert_model_parallel_size"},
}


@pytest.mark.parametrize("path", list(TAKEN))
def test_the_plan_names_every_field_it_took_with_its_key_and_line(repo, path):
    plan = build(repo / path)
    taken = plan.taken()
    for name, spelled in TAKEN[path].items():
        assert name in taken, name
        assert spelled in taken[name]["from"], (name, taken[name])
    line_cited = [v["from"] for v in taken.values() if v["from"].rstrip(")").rsplit(":", 1)[-1].isdigit()]
    assert len(line_cited) >= len(TAKEN[path]) - 1


@pytest.mark.parametrize("path,changed", [
    (LLAMA, {"num_layers": (32, 4), "cp": (2, 1), "dp": (4, 1)}),
    (QWEN, {"num_layers": (48, 4), "tp": (4, 1), "pp": (2, 1), "ep": (4, 1), "sequence_parallel": (True, False)}),
    (SHARED, {"num_layers": (24, 4), "ep": (4, 1)}),
])
def test_the_plan_records_every_change_with_its_rule_and_meaning(repo, path, changed):
    plan = build(repo / path)
    got = {c.field: (c.before, c.after) for c in plan.changes}
    assert got == changed
    assert all(c.rule and c.meaning for c in plan.changes)
    line = next(c.line() for c in plan.changes if c.field == "num_layers")
    assert line.startswith(f"adapted: num_layers {changed['num_layers'][0]} -> 4 (fits 139 GB")
    assert not plan.refused


def test_expert_folding_says_where_the_experts_go(repo):
    plan = build(repo / QWEN)
    ep = next(c for c in plan.changes if c.field == "ep")
    assert "all 128 experts on one GPU" in ep.meaning


def test_the_run_shape_is_the_configs_layer_shape(repo):
    plan = build(repo / QWEN)
    full, run = plan.shape.to_dict(), plan.run_shape.to_dict()
    differ = {k for k in full if full[k] != run[k] and k != "origin"}
    assert differ == {"num_layers"}
    assert plan.memory["fits"] and plan.memory["total_gb"] < 139
    assert plan.projection["all_layers_here"]["fits"] is False


def test_candidates_are_eager_the_configs_own_and_recommends_with_its_next_step(repo):
    llama = [c.name for c in build(repo / LLAMA).candidates]
    # the config's own full iteration is also recommend's proposal; its next step is TE attn+mlp
    assert llama == ["eager", "full_iteration", "te:attn+mlp"]
    qwen = [c.name for c in build(repo / QWEN).candidates]
    assert qwen == ["eager", "te:moe_router+moe_preprocess", "te:attn+moe_router+moe_preprocess"]


def test_a_bridge_recipe_name_resolves_through_the_committed_table():
    plan = build("qwen3_30b_a3b")
    assert (plan.shape.num_layers, plan.shape.num_experts, plan.shape.moe_ffn_hidden_size) == (48, 128, 768)
    origin = plan.taken()["num_layers"]["from"]
    assert "Qwen3MoEModelProvider30B_A3B" in origin and "v0.3.1:src/megatron/bridge/models/qwen/qwen_provider.py:" in origin
    assert any("recompute" in n for n in plan.notes)  # the recipe's full recompute is said, not dropped


def test_a_python_recipe_that_calls_a_bridge_recipe_takes_its_shape_and_its_own_edits(tmp_path):
    script = tmp_path / "my_recipe.py"
    script.write_text("from megatron.bridge.recipes.llama.llama3 import llama3_8b_pretrain_config\n"
                      "cfg = llama3_8b_pretrain_config()\ncfg.model.seq_length = 4096\n"
                      "cfg.model.context_parallel_size = 1\n")
    plan = build(script)
    assert plan.recipe == "llama3_8b"
    assert plan.shape.seq_length == 4096 and plan.taken()["seq_length"]["from"].endswith(f"{script}:3)")
    assert plan.shape.hidden_size == 4096 and "Llama3ModelProvider8B" in plan.taken()["hidden_size"]["from"]


def test_dry_run_json_is_versioned_and_needs_no_torch(repo):
    code = ("import json, sys, io, contextlib; from skill_tools.cli import main; buf = io.StringIO()\n"
            "with contextlib.redirect_stdout(buf): rc = main(['bench', '--config', "
            f"{str(repo / QWEN)!r}, '--dry-run', '--json'])\n"
            "doc = json.loads(buf.getvalue()); heavy = [m for m in ('torch', 'megatron', 'transformer_engine') "
            "if m in sys.modules]\nprint(json.dumps({'rc': rc, 'v': doc['schema_version'], 'heavy': heavy}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=repo)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result == {"rc": 0, "v": 1, "heavy": []}, out.stderr


def test_precheck_prints_the_same_plan(repo, capsys):
    assert main(["precheck", "--config", str(repo / LLAMA), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["kind"] == "plan" and doc["run_shape"]["hidden_size"] == 4096 and doc["run_shape"]["num_layers"] == 4


@pytest.mark.parametrize("config,field,hint", [
    ("nemotronh_8b", "hybrid_layer_pattern", "--plan-cluster"),
    ("deepseek_v2_lite", "multi_latent_attention", "GQA"),
])
def test_architectures_the_engines_cannot_build_are_refused_before_any_gpu_time(config, field, hint, capsys):
    assert main(["bench", "--config", config, "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert f"refused: {field}=" in err and hint in err


def test_a_shape_that_cannot_fit_even_one_layer_is_refused_with_what_would_work(tmp_path, capsys):
    cfg = tmp_path / "huge.yaml"
    cfg.write_text("model:\n  num_layers: 61\n  hidden_size: 7168\n  num_attention_heads: 128\n  seq_length: 4096\n"
                   "  ffn_hidden_size: 18432\n  num_moe_experts: 1024\n  moe_ffn_hidden_size: 2048\n  moe_router_topk: 8\n"
                   "  gated_linear_unit: true\n  activation_func: silu\n")
    assert main(["bench", "--config", str(cfg), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert "refused: num_layers=61" in err and "GB" in err and "what would work: 8 GPUs (--nproc 8: EP 8)" in err


@pytest.mark.parametrize("text,message", [
    ("model:\n  num_layers: 4\n  cuda_graph_impl: full_iteration\n", "does not set hidden_size, num_attention_heads"),
    ("model:\n  num_layers: four\n  hidden_size: 512\n  num_attention_heads: 8\n  seq_length: 256\n", "num_layers must be"),
])
def test_configs_without_a_usable_shape_exit_2_naming_the_fields(tmp_path, capsys, text, message):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(text)
    assert main(["bench", "--config", str(cfg), "--dry-run"]) == 2
    assert message in capsys.readouterr().err


def test_an_unknown_recipe_name_exits_2_listing_close_names(capsys):
    assert main(["bench", "--config", "qwen3_31b", "--dry-run"]) == 2
    assert "qwen3_30b_a3b" in capsys.readouterr().err


def test_a_geglu_model_is_refused_for_the_megatron_lm_flags(tmp_path, capsys):
    cfg = tmp_path / "gemma.txt"
    cfg.write_text("model.num_layers=26\nmodel.hidden_size=2304\nmodel.num_attention_heads=8\nmodel.seq_length=8192\n"
                   "model.gated_linear_unit=true\nmodel.activation_func=gelu\n")
    assert main(["bench", "--config", str(cfg), "--dry-run"]) == 2
    assert "refused: activation='geglu'" in capsys.readouterr().err


def test_a_first_dense_moe_layer_pattern_keeps_one_dense_layer(tmp_path):
    cfg = tmp_path / "ds.yaml"
    cfg.write_text("model:\n  num_layers: 27\n  hidden_size: 2048\n  num_attention_heads: 16\n  seq_length: 4096\n"
                   "  ffn_hidden_size: 10944\n  num_moe_experts: 64\n  moe_ffn_hidden_size: 1408\n  moe_router_topk: 6\n"
                   "  moe_shared_expert_intermediate_size: 2816\n  moe_layer_freq: [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,"
                   " 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n")
    plan = build(cfg)
    assert plan.run_shape.num_layers == 4 and plan.run_shape.moe_layer_freq == [0, 1, 1, 1]


def test_megatron_lm_moe_layer_freq_string_is_read_without_eval(tmp_path):
    cfg = tmp_path / "run.sh"
    cfg.write_text("torchrun pretrain_gpt.py --num-layers 8 --hidden-size 1024 --num-attention-heads 16 "
                   "--seq-length 2048 --num-experts 8 --moe-layer-freq '([0]*2+[1]*6)'\n")
    plan = build(cfg)
    assert plan.shape.moe_layer_freq == [0, 0, 1, 1, 1, 1, 1, 1]
    assert plan.run_shape.moe_layer_freq == [0, 1, 1, 1]


def _schema():
    import importlib.resources

    return json.loads(importlib.resources.files("skill_tools.schemas").joinpath("plan.schema.json").read_text())


@pytest.mark.parametrize("config", [LLAMA, QWEN, SHARED, "qwen3_30b_a3b", "nemotronh_8b"])
def test_plan_json_matches_its_schema(repo, config):
    import jsonschema

    doc = json.loads(json.dumps(build(repo / config if "/" in config else config).to_dict(), default=str))
    jsonschema.validate(doc, _schema())


def test_every_recipe_in_the_table_plans_or_is_refused_with_a_reason():
    """Upstream's own inputs: every Bridge recipe the harvest resolved (49 at v0.3.1-v0.6.0)."""
    from skill_tools.plan import recipes

    names = recipes.names()
    assert len(names) >= 40
    outcomes = {}
    for name in names:
        plan = build(name)
        assert plan.refused or (plan.memory and plan.memory["fits"]), name
        assert all(r.would_work for r in plan.refusals)
        outcomes[name] = sorted(r.field for r in plan.refusals)
    assert outcomes["llama3_8b"] == [] and outcomes["qwen3_30b_a3b"] == []
    assert "hybrid_layer_pattern" in outcomes["nemotronh_8b"]
    assert "multi_latent_attention" in outcomes["deepseek_v2_lite"]


def test_variants_select_from_the_plan_and_refuse_what_the_model_cannot_run(repo, capsys):
    assert main(["bench", "--config", str(repo / SHARED), "--dry-run", "--json",
                 "--variants", "eager,te:attn+moe_router+moe_preprocess"]) == 0
    assert [c["name"] for c in json.loads(capsys.readouterr().out)["candidates"]] == [
        "eager", "te:attn+moe_router+moe_preprocess"]
    assert main(["bench", "--config", str(repo / SHARED), "--dry-run", "--variants", "te:moe"]) == 2
    assert "drop-and-pad MoE only" in capsys.readouterr().err


def test_a_config_never_runs_on_the_proxys_builtin_model(repo, capsys):
    assert main(["bench", "--config", str(repo / LLAMA), "--dry-run", "--engine", "proxy"]) == 2
    assert "the proxy loop builds only its own tiny workloads" in capsys.readouterr().err


def test_dry_run_shows_the_flags_each_variant_runs_with(repo, capsys):
    assert main(["bench", "--config", str(repo / QWEN), "--dry-run", "--json",
                 "--variants", "eager,te:attn+moe_router+moe_preprocess"]) == 0
    doc = json.loads(capsys.readouterr().out)
    flags = {v["name"]: v["megatron_lm_flags"] for v in doc["bench"]["variants"]}
    assert flags["eager"][:4] == ["--num-layers", "4", "--hidden-size", "2048"]
    assert "--num-experts" in flags["eager"] and "--cuda-graph-modules" not in flags["eager"]
    assert " ".join(flags["te:attn+moe_router+moe_preprocess"]).endswith(
        "--cuda-graph-impl transformer_engine --cuda-graph-modules attn moe_router moe_preprocess --te-rng-tracker")
    assert any("adapted: num_layers 48 -> 4" in n for n in doc["bench"]["notes"])


def test_the_world_size_comes_from_the_launchers_own_words_and_variables():
    from skill_tools.config.shape import launcher_world

    text = "GPUS_PER_NODE=8\nNNODES=2\ntorchrun --nproc_per_node $GPUS_PER_NODE --nnodes ${NNODES} pretrain_gpt.py\n"
    assert launcher_world(text, "run.sh") == (16, "torchrun --nproc-per-node 8 x --nnodes 2 (run.sh:3)")
    assert launcher_world("python pretrain_gpt.py --num-layers 2\n", "run.sh") is None


def test_precheck_help_says_its_config_plan_measures_nothing(capsys):
    with pytest.raises(SystemExit):
        main(["precheck", "--help"])
    precheck_help = capsys.readouterr().out
    assert "measures nothing" in precheck_help and "bench --config FILE" in precheck_help
    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    assert "measure the user's own model" in capsys.readouterr().out
