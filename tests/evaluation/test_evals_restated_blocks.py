"""The question's own config written back before its fix (:mod:`skill_tools.evaluation.restated_blocks`)
is described, not advice: merged with the fix it would keep the deprecated key beside its successor."""

from __future__ import annotations

from one_answer import score_one

BEFORE = ("cat > cg_check.yaml <<'YAML'\nmodel:\n  cuda_graph_impl: transformer_engine\n"
          "  cuda_graph_scope: [moe, moe_router]\n  use_te_rng_tracker: false\nYAML\n"
          "skill-tools validate --json cg_check.yaml --mcore-version 0.19.2 || true\n"
          "# expect: moe and moe_router cannot be combined; the TE RNG tracker is required; cuda_graph_scope is deprecated\n")
AFTER = ("cat > cg_fixed.yaml <<'YAML'\nmodel:\n  cuda_graph_impl: transformer_engine\n"
         "  cuda_graph_modules: [moe_router, moe_preprocess]\n  use_te_rng_tracker: true\nrng:\n  te_rng_tracker: true\nYAML\n"
         "skill-tools validate --json cg_fixed.yaml --mcore-version 0.19.2   # expect exit 0\n")


def test_the_restated_config_before_its_fix_is_not_merged_into_it():
    row = score_one("run-helper-validate", "```bash\n" + BEFORE + AFTER + "```\n")
    assert "model.cuda_graph_scope" not in row["config"]["values"], row["fatal"]
    assert not any("scope-and-modules-both" in f for f in row["fatal"]), row["fatal"]


def test_a_restated_config_with_no_fix_after_it_stays_advice():
    row = score_one("run-helper-validate", "```bash\n" + BEFORE + "```\n")
    assert row["config"]["values"].get("model.cuda_graph_scope") == ["moe", "moe_router"]


def test_a_config_printed_in_a_transcript_before_its_fix_is_not_merged():
    answer = ("$ cat cg.yaml\nmodel:\n  cuda_graph_impl: transformer_engine\n  cuda_graph_scope: [moe, moe_router]\n"
              "  use_te_rng_tracker: false\n\n$ skill-tools validate cg.yaml --mcore-version 0.19.2 --json\n"
              "error    cuda_graph_modules must not contain both moe and moe_router.\n\n-- fixed config --\n"
              "$ cat cg.fixed.yaml\nmodel:\n  cuda_graph_impl: transformer_engine\n"
              "  cuda_graph_modules: [moe_router, moe_preprocess]\n  use_te_rng_tracker: true\nrng:\n  te_rng_tracker: true\n")
    row = score_one("run-helper-validate", answer)
    assert "model.cuda_graph_scope" not in row["config"]["values"], row["config"]["values"]


def test_a_section_alias_keeps_its_section_when_lines_are_read_alone():
    """``m = cfg.model`` then ``m.cuda_graph_impl = …`` in an answer read line by line is model.*."""
    from skill_tools.evaluation.extract import extract_config

    text = ('def enable(cfg):\n    """Whole-iteration graph.\n\n    On 0.16 the scope list asks for it.\n    """\n'
            '    m = cfg.model\n    m.cuda_graph_impl = "local"\n    m.cuda_graph_scope = ["full_iteration"]\n    return cfg\n')
    values = extract_config(text).config.values
    assert values.get("model.cuda_graph_impl") == "local" and not any(k.startswith("m.") for k in values)
