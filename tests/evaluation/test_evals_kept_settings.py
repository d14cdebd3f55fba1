"""Settings the known fix keeps (a rubric ``config`` check with ``if_set``) and options offered for
another case ("if you run drop-and-pad (…), `[moe]` is the alternative"). Answers written for
these tests, through the whole scorer."""

from __future__ import annotations

from one_answer import checks_of, score_one

NAN = ("Treat it as replay numerics: A/B with graphs off at the same seed, then narrow the scope. Known causes: "
       "EP overlap interleaving with partial graphs (Megatron-LM#5966) and the wgrad accumulation flags on replay "
       "(TE PR #1204). Upgrade TE and megatron-core and compare loss curves.\n")


def _kept(row: dict) -> dict:
    (check,) = [c for c in checks_of(row, "config") if c["name"] == "gradient_accumulation_fusion kept on"]
    return check


def test_a_misfix_that_turns_off_a_kept_setting_fails():
    wrong = score_one("diagnose-nan-after-graphs", NAN + "\n```yaml\nmodel:\n  gradient_accumulation_fusion: false\n```\n")
    assert _kept(wrong)["score"] == 0.0 and not wrong["passed"]


def test_an_answer_that_leaves_a_kept_setting_alone_is_not_charged():
    right = score_one("diagnose-nan-after-graphs", NAN)
    assert _kept(right)["score"] is None and "not applicable" in _kept(right)["explanation"] and right["passed"]
    kept = score_one("diagnose-nan-after-graphs", NAN + "Keep `gradient_accumulation_fusion=True`.\n")
    assert _kept(kept)["score"] == 1.0 and kept["passed"]


VALIDATE = ("Run `skill-tools validate cfg.yaml --mcore-version 0.19.2`: it reports moe with moe_router (refused), "
            "the TE RNG tracker off, and the deprecated cuda_graph_scope. For dropless MoE:\n\n```yaml\nmodel:\n"
            "  cuda_graph_impl: transformer_engine\n  cuda_graph_modules: [moe_router, moe_preprocess]\n"
            "  use_te_rng_tracker: true\nrng:\n  te_rng_tracker: true\n```\n\n")


def test_an_option_offered_for_another_case_is_judged_in_that_case():
    row = score_one("run-helper-validate", VALIDATE + "If you run drop-and-pad (`moe_pad_expert_input_to_capacity: true`), "
                                                      "`cuda_graph_modules: [moe]` is the alternative.\n")
    assert row["passed"], row["fatal"]


def test_an_option_whose_case_is_the_tasks_own_setup_is_still_judged():
    row = score_one("run-helper-validate", VALIDATE + "If you stay dropless (`moe_pad_expert_input_to_capacity: false`), "
                                                      "`cuda_graph_modules: [moe]` is the alternative.\n")
    assert not row["passed"] and any("moe-scope-needs-drop-pad" in f for f in row["fatal"])


def test_a_purpose_clause_after_a_key_is_not_its_value():
    from skill_tools.evaluation.extract import extract_config

    cfg = extract_config("You can turn off `moe_pad_expert_input_to_capacity` to save the padding FLOPs.").config
    assert cfg.get("model.moe_pad_expert_input_to_capacity") is False
    assert extract_config("Disable gradient_accumulation_fusion to fix it.").config.get(
        "model.gradient_accumulation_fusion") is False
    assert extract_config("Set cuda_graph_impl to local for decode.").config.get("model.cuda_graph_impl") == "local"


def test_prose_that_turns_off_a_kept_setting_fails():
    wrong = score_one("moe-drop-pad-moe-scope",
                      "Yes. Use the moe scope with drop-and-pad:\n\n```python\ncfg.model.cuda_graph_impl = 'transformer_engine'\n"
                      "cfg.model.cuda_graph_modules = ['attn', 'moe']\ncfg.model.use_te_rng_tracker = True\n"
                      "cfg.rng.te_rng_tracker = True\n```\n\nmoe and moe_router are mutually exclusive. The capacity "
                      "factor bounds the shapes; you can turn off `moe_pad_expert_input_to_capacity` to save FLOPs.\n")
    assert not wrong["passed"]


OOM = ("With PP>1 the TE helper keeps static buffers per layer per microbatch in flight, so memory grows with "
       "the microbatch count. Use fewer microbatches, a narrower scope, or upgrade for buffer reuse; graphs are "
       "for runs with memory headroom.\n")


def test_a_companion_required_only_with_a_setting_the_answer_makes():
    alone = score_one("pp-memory-oom", OOM)
    (env,) = checks_of(alone, "env")
    assert env["score"] is None and alone["passed"]
    without = score_one("pp-memory-oom", OOM + "\n```bash\nexport PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n```\n")
    assert not without["passed"] and any("NCCL_GRAPH_REGISTER" in f for f in without["fatal"])
    both = score_one("pp-memory-oom", OOM + "\n```bash\nexport PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n"
                                            "export NCCL_GRAPH_REGISTER=0\n```\n")
    assert both["passed"]


RL_DIAG = ("Colocated generation never built its CudaGraphManagers, so decode ran eager: grep the log for "
           "'> built ... cuda graph(s)' (absent). The persist assert: --rl-persist-cuda-graphs with graphs off. "
           "With KV-cache offload, NCCL_GRAPH_REGISTER=0.\n")


def test_turning_generation_graphs_off_instead_of_fixing_them_fails():
    off = score_one("rl-colocated-eager-decode", RL_DIAG + "So set `mcore_generation_config.cuda_graph_impl: none`.\n")
    assert not off["passed"]
    fixed = score_one("rl-colocated-eager-decode", RL_DIAG + "Upgrade NeMo-RL (PRs #3689/#3718) and keep "
                                                             "`mcore_generation_config.cuda_graph_impl: local`.\n")
    assert fixed["passed"], fixed["fatal"]


def test_advice_for_another_setup_named_by_an_if_clause_is_an_option_for_it():
    """'If your MoE is drop-and-pad (…), use `[moe]` alone instead' is judged in that case, not as the config."""
    row = score_one("run-helper-validate", VALIDATE + "If your MoE is drop-and-pad (`moe_expert_capacity_factor` set, "
                                                      "`moe_pad_expert_input_to_capacity: true`), use "
                                                      "`cuda_graph_modules: [moe]` alone instead.\n")
    assert row["passed"], row["fatal"]
    era = score_one("run-helper-validate", VALIDATE + "If your config is on megatron-core 0.16, use "
                                                      "`cuda_graph_scope: [moe_router, moe_preprocess]` instead.\n")
    assert era["passed"], era["fatal"]
