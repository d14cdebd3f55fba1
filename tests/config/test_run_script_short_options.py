"""A run_script.py line of short options only (``-m ... -mr ... -ep 16``) is a run_script launch."""

import pytest

from skill_tools.api import validate
from skill_tools.config.readers import detect_format, read_text


@pytest.mark.parametrize("text", [
    "-m deepseek -mr deepseek_v3 -ep 16\n",
    "python scripts/performance/run_script.py -m qwen -mr qwen3_30b_a3b -ng 16 -vp 5 -et 8\n",
])
def test_short_options_read_as_run_script(text):
    assert detect_format(text) == "run_script"
    cfg = read_text(text)
    assert cfg.fmt == "run_script" and cfg.get("meta.model_family_name") in ("deepseek", "qwen")


def test_vp_and_et_take_any_integer():
    """argument_parser.py's type= lambdas: ``None if x == "None" else int(x)`` and ``int(x)``."""
    report = validate("python scripts/performance/run_script.py -m deepseek -mr deepseek_v3 -ng 256 -vp 5 -et 8 -ep 16 "
                      "--cuda_graph_impl transformer_engine --cuda_graph_scope attn,moe_router,moe_preprocess\n",
                      "0.19.2")
    assert report.ok, [str(f) for f in report.findings]
    bad = validate("python scripts/performance/run_script.py -m llama -mr llama3_8b -ng 8 -vp five\n", "0.19.2")
    assert any(f.rule == "run-script-flag-value" and "-vp" in f.message for f in bad.findings)


def test_yaml_with_dashes_stays_yaml():
    assert detect_format("model:\n  - a\n") == "yaml"
    assert detect_format("a: -1\n") == "yaml"
