"""The answer extractor: finds every config format, keeps counterexamples apart, never runs anything."""

from __future__ import annotations

from skill_tools.config.era import read_intent
from skill_tools.evaluation.extract import COUNTEREXAMPLE, REJECTED, SUGGESTED, extract_config

F = "```"


def test_python_yaml_json_blocks():
    text = f"""Config:
{F}python
cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_modules = ["attn"]
{F}
{F}yaml
rng:
  te_rng_tracker: true
{F}
{F}json
{{"model": {{"cuda_graph_warmup_steps": 3}}}}
{F}
"""
    ex = extract_config(text)
    cfg = ex.config
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine"
    assert cfg.get("model.cuda_graph_modules") == ["attn"]
    assert cfg.get("rng.te_rng_tracker") is True
    assert cfg.get("model.cuda_graph_warmup_steps") == 3
    assert [b.kind for b in ex.blocks] == ["python", "yaml", "json"]
    assert ex.blocks[0].line == 3 and "model.cuda_graph_impl" in ex.blocks[0].keys


def test_megatron_lm_flags_skip_launcher_options_and_env():
    text = f"""{F}bash
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
NCCL_GRAPH_REGISTER=0 torchrun --nproc-per-node 8 pretrain_gpt.py \\
    --cuda-graph-impl transformer_engine --cuda-graph-modules attn mlp --te-rng-tracker
{F}"""
    ex = extract_config(text)
    cfg = ex.config
    assert cfg.env == {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True", "NCCL_GRAPH_REGISTER": "0"}
    assert read_intent(cfg).impl == "transformer_engine"
    assert set(read_intent(cfg).modules) == {"attn", "mlp"}
    assert not any("nproc" in k for k in cfg.values), cfg.values


def test_run_script_and_hydra_overrides():
    text = ("uv run python scripts/performance/run_script.py -m qwen -mr qwen3_30b_a3b "
            "--cuda_graph_impl transformer_engine --cuda_graph_scope moe_router,moe_preprocess")
    ex = extract_config(f"{F}bash\n{text} model.cuda_graph_warmup_steps=2\n{F}")
    kinds = sorted(b.kind for b in ex.blocks)
    assert kinds == ["hydra", "run_script"]
    assert set(read_intent(ex.config).modules) == {"moe_router", "moe_preprocess"}
    assert ex.config.get("model.cuda_graph_warmup_steps") == 2


def test_inline_prose_and_negation():
    text = ("Set `rerun_state_machine.check_for_nan_in_loss=False` and model.cuda_graph_warmup_steps=3. "
            "Do not set cuda_graph_impl=local here.")
    ex = extract_config(text)
    assert ex.config.get("rerun_state_machine.check_for_nan_in_loss") is False
    assert ex.config.get("model.cuda_graph_warmup_steps") == 3
    assert not ex.config.has("model.cuda_graph_impl")
    assert ex.counter_config.get("model.cuda_graph_impl") == "local"


def test_before_after_blocks_and_diff():
    text = f"""Before:
{F}python
cfg.model.enable_cuda_graph = True
{F}
After:
{F}python
cfg.model.cuda_graph_impl = "full_iteration"
{F}
{F}diff
- cfg.model.cuda_graph_scope = ["attn"]
+ cfg.model.cuda_graph_modules = ["attn"]
{F}"""
    ex = extract_config(text)
    roles = [(b.role, b.keys) for b in ex.blocks]
    assert roles[0] == (COUNTEREXAMPLE, ["model.enable_cuda_graph"])
    assert roles[1][0] == SUGGESTED
    assert ex.config.get("model.cuda_graph_impl") == "full_iteration"
    assert ex.config.get("model.cuda_graph_modules") == ["attn"]
    assert not ex.config.has("model.cuda_graph_scope") and not ex.config.has("model.enable_cuda_graph")


def test_unreadable_fragment_is_a_parse_finding_not_a_crash():
    ex = extract_config(f"{F}python\ncfg.model.cuda_graph_impl = (\n{F}")
    assert any(f.kind == "parse" for f in ex.findings)
    assert not ex.unsafe and ex.config.values == {}


def test_no_config_in_plain_prose():
    ex = extract_config("Profile first; graphs help launch-bound steps. See the docs, e.g. https://x.org/a?b=c.")
    assert ex.config.values == {} and ex.blocks == []


def test_rejected_blocks_are_marked():
    ex = extract_config(f"{F}yaml\nmodel: !!python/object/apply:os.system ['id']\n{F}")
    assert ex.blocks[0].role == REJECTED and ex.unsafe
