"""Scoring: rubric checks with explanations, derived scoring for plain tasks, aggregation, CLI."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from skill_tools.cli import main
from skill_tools.evaluation import report as rep
from skill_tools.evaluation.execute import Executor, config_hash
from skill_tools.evaluation.extract import extract_config
from skill_tools.evaluation.score import score_all
from skill_tools.evaluation.tasks import AnswerRecord, load_answers, load_tasks

REPO = Path(__file__).resolve().parents[2]
EVALS = REPO / "evals" / "evals.json"
SAMPLES = REPO / "evals" / "answers" / "samples.jsonl"
F = "```"


@pytest.fixture(scope="module")
def taskset():
    return load_tasks(EVALS)


def one(taskset, tid, answer, condition="with_skill", **kw):
    report = score_all(taskset, [AnswerRecord(tid, condition, "t", answer, 1)], **kw)
    return report["answers"][0]


def checks(ans, ctype=None):
    return [c for b in ans["behaviors"] for c in b["checks"] if ctype is None or c["type"] == ctype]


def test_every_score_has_an_explanation(taskset):
    report = score_all(taskset, load_answers(SAMPLES))
    for a in report["answers"]:
        for c in checks(a):
            assert c["explanation"], c


def test_era_neutral_graph_check_accepts_both_spellings(taskset):
    legacy = f"{F}python\ncfg.model.cuda_graph_impl = 'local'\ncfg.model.cuda_graph_scope = ['full_iteration']\n{F}"
    current = f"{F}python\ncfg.model.cuda_graph_impl = 'full_iteration'\ncfg.model.cuda_graph_modules = []\n{F}"
    for text in (legacy, current):
        g = checks(one(taskset, "full-iteration-current", text), "graph")[0]
        assert g["score"] == 1.0, g
    spell = {text: checks(one(taskset, "full-iteration-current", text), "era_spelling")[0]["score"] for text in (legacy, current)}
    assert spell == {legacy: 0.0, current: 1.0}


def test_forbidden_scope_fails_with_evidence(taskset):
    ans = one(taskset, "moe-dropless-bringup", f"{F}yaml\nmodel:\n  cuda_graph_impl: transformer_engine\n"
                                              f"  cuda_graph_scope: [attn, moe, moe_router]\n{F}")
    g = checks(ans, "graph")[0]
    assert g["score"] == 0.0 and "moe" in g["explanation"] and "cuda_graph_scope" in g["evidence"]


def test_concept_quotes_evidence(taskset):
    ans = one(taskset, "dense-te-scoped-bringup", "Keep static shapes: fixed seq_length and MBS.")
    c = [c for c in checks(ans, "concept") if c["name"] == "static shapes"][0]
    assert c["score"] == 1.0 and "static shapes" in c["evidence"]


def test_negative_task_penalises_graph_advice(taskset):
    good = one(taskset, "neg-nccl-bandwidth", "Run nccl-tests all_reduce_perf and read busbw; NCCL_DEBUG=INFO.")
    bad = one(taskset, "neg-nccl-bandwidth", "Set `cuda_graph_impl=transformer_engine` and NCCL_GRAPH_REGISTER=1.")
    assert good["score"] == 1.0 and good["passed"]
    assert bad["score"] < 0.5 and not bad["passed"]
    assert any(c["type"] == "no_graph_config" and c["score"] == 0.0 for c in checks(bad))


def test_negated_mention_is_not_advice(taskset):
    ans = one(taskset, "neg-triton-kernel", "Use triton.autotune with num_warps configs; no cuda_graph_impl is needed here.")
    absent = checks(ans, "concept_absent")[0]
    assert absent["score"] == 1.0


def test_plain_nvskills_task_gets_derived_scores(tmp_path):
    tasks = [{"id": "plain", "question": "q", "expected_skill": "x", "expected_script": None, "should_trigger": True,
              "ground_truth": "Set cfg.model.cuda_graph_impl=\"transformer_engine\" and `rng.te_rng_tracker=True`.",
              "expected_behavior": ["Mention the te_rng_tracker requirement and static shapes."]},
             {"id": "neg", "question": "q", "expected_skill": None, "expected_script": None, "should_trigger": False,
              "ground_truth": "unrelated", "expected_behavior": ["Explain nccl-tests busbw."]}]
    path = tmp_path / "evals.json"
    path.write_text(json.dumps(tasks))
    ts = load_tasks(path)
    good = "Use `model.cuda_graph_impl=transformer_engine` with `rng.te_rng_tracker=True`; keep static shapes."
    bad = "Use `model.cuda_graph_impl=local`."
    report = score_all(ts, [AnswerRecord("plain", "with_skill", "", good, 1), AnswerRecord("plain", "without_skill", "", bad, 2),
                            AnswerRecord("neg", "with_skill", "", "nccl-tests busbw", 3),
                            AnswerRecord("neg", "without_skill", "", "`cuda_graph_impl=local`", 4)])
    s = {(a["id"], a["condition"]): a["score"] for a in report["answers"]}
    assert s[("plain", "with_skill")] == 1.0
    assert s[("plain", "without_skill")] < 0.5
    assert s[("neg", "with_skill")] == 1.0 and s[("neg", "without_skill")] < 1.0
    derived = [b for b in report["answers"][0]["behaviors"] if b["index"] is None][0]
    assert "ground_truth" in derived["behavior"]


def test_aggregate_uplift_gate_and_markdown(taskset):
    report = score_all(taskset, load_answers(SAMPLES))
    assert report["uplift"]["tasks_compared"] >= 15 and report["uplift"]["mean"] > 0.5
    assert report["gate"]["condition"] == "with_skill" and report["gate"]["passed"]
    assert report["conditions"]["without_skill"]["unsafe_answers"] >= 3
    md = rep.markdown(report)
    assert "| `dense-te-scoped-bringup` |" in md and "evidence:" in md
    table = rep.text_table(report)
    assert "gate: with_skill" in table and "PASS" in table


def test_cli_exit_codes_and_json(tmp_path, capsys):
    assert main(["evals", "score", "--answers", str(SAMPLES), "--evals", str(EVALS), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["gate"]["passed"] is True
    weak = REPO / "evals" / "answers" / "weak.jsonl"
    md = tmp_path / "r.md"
    assert main(["evals", "score", "--answers", str(weak), "--evals", str(EVALS), "--markdown", str(md)]) == 1
    assert md.read_text().startswith("# Eval scores")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    assert main(["evals", "score", "--answers", str(bad), "--evals", str(EVALS)]) == 2
    assert "bad.jsonl:1" in capsys.readouterr().err


class FakeResult:
    def __init__(self, ok):
        self.ok = ok

    def to_dict(self):
        return {"captured": self.ok, "replayed": self.ok, "loss_ok": self.ok,
                "error_class": None if self.ok else "capture_error", "evidence": ["fake"]}


def test_execute_caches_by_config_hash(taskset, tmp_path):
    calls = []

    def fake_runner(cfg, **kw):
        calls.append((dict(cfg), kw["workload"]))
        return FakeResult(cfg.get("model.cuda_graph_impl") == "transformer_engine")

    ex = Executor(tmp_path / "cache", runner=fake_runner)
    answers = [AnswerRecord("dense-te-scoped-bringup", c, "", a, 1) for c, a in
               [("with_skill", f"{F}python\ncfg.model.cuda_graph_impl = 'transformer_engine'\n{F}"),
                ("without_skill", f"{F}python\ncfg.model.cuda_graph_impl = 'transformer_engine'\n{F}"),
                ("without_skill", f"{F}python\ncfg.model.cuda_graph_impl = 'local'\n{F}")]]
    report = score_all(taskset, answers, executor=ex)
    assert len(calls) == 2  # two distinct configs
    exe = [checks(a, "executes")[0]["score"] for a in report["answers"]]
    assert exe == [1.0, 1.0, 0.0]
    again = Executor(tmp_path / "cache", runner=lambda *a, **k: pytest.fail("cache miss"))
    score_all(taskset, answers[:1], executor=again)
    assert again.cached == 1
    from skill_tools.evaluation.score import Scorer
    from skill_tools.evaluation.setup import task_setup
    setup = task_setup(taskset.tasks["dense-te-scoped-bringup"].data)
    cfg = Scorer._on_setup(extract_config(answers[0].answer).config, setup)  # executed on the task's setup
    assert cfg.get("model.tensor_model_parallel_size") == 1  # "TP=1" in the question
    assert (tmp_path / "cache" / f"{config_hash(cfg, 'dense', 6)}.json").is_file()


def test_execute_without_gpu_is_skipped_with_reason(taskset, tmp_path):
    from skill_tools.errors import NoGpuError

    def no_gpu(cfg, **kw):
        raise NoGpuError("no CUDA device")

    report = score_all(taskset, [AnswerRecord("dense-te-scoped-bringup", "with_skill", "",
                                              f"{F}python\ncfg.model.cuda_graph_impl = 'transformer_engine'\n{F}", 1)],
                       executor=Executor(tmp_path, runner=no_gpu))
    c = checks(report["answers"][0], "executes")[0]
    assert c["score"] is None and c["explanation"].startswith("skipped: no GPU")
    assert report["tasks"][0]["conditions"]["with_skill"]["execution"].startswith("skipped")


def test_score_100_answers_fast(taskset):
    records = load_answers(SAMPLES)
    batch = [records[i % len(records)] for i in range(100)]
    start = time.perf_counter()
    score_all(taskset, batch)
    assert time.perf_counter() - start < 120  # a ceiling on unbounded work, not a race (typical: ~1 s)


def test_execute_refused_config_scores_zero(taskset, tmp_path):
    from skill_tools.errors import InputError

    def refuse(cfg, **kw):
        raise InputError("<config>", "validator refuses this config")

    report = score_all(taskset, [AnswerRecord("dense-te-scoped-bringup", "with_skill", "",
                                              f"{F}python\ncfg.model.cuda_graph_impl = 'local'\n{F}", 1)],
                       executor=Executor(tmp_path, runner=refuse))
    c = checks(report["answers"][0], "executes")[0]
    assert c["score"] == 0.0 and "refused" in c["explanation"]


def test_validation_uses_the_task_context(taskset):
    """A snippet that only sets graph keys is judged against the user's MoE model from the question."""
    snippet = (f"{F}python\ncfg.model.cuda_graph_impl = 'transformer_engine'\n"
               f"cfg.model.cuda_graph_modules = ['moe_router', 'moe_preprocess']\n"
               f"cfg.model.use_te_rng_tracker = True\ncfg.rng.te_rng_tracker = True\n{F}")
    assert taskset.tasks["moe-dropless-bringup"].rubric["context"]["model"]["num_moe_experts"] > 1
    v = checks(one(taskset, "moe-dropless-bringup", snippet), "validates")[0]
    assert v["score"] == 1.0, v
    # the answer's own values win over the context: a dense override is still caught
    dense = snippet.replace("cfg.rng.te_rng_tracker = True\n", "cfg.rng.te_rng_tracker = True\ncfg.model.num_moe_experts = None\n")
    v = checks(one(taskset, "moe-dropless-bringup", dense), "validates")[0]
    assert v["score"] == 0.0 and "moe-scope-needs-moe-model" in v["explanation"], v


def test_fatal_finding_caps_below_threshold(taskset):
    good = ("Start with TE scoped graphs: `cuda_graph_impl=transformer_engine`, `cuda_graph_modules=[\"attn\"]`, "
            "`model.use_te_rng_tracker=True`, `rng.te_rng_tracker=True`. Keep static sequence length and fixed "
            "micro-batch size. Profile eager first with nsys and compare steady-state replay iterations after capture.")
    fatal = good.replace('`model.use_te_rng_tracker=True`, `rng.te_rng_tracker=True`',
                         '`model.use_te_rng_tracker=False`, `rng.te_rng_tracker=False`')
    g, f = one(taskset, "dense-te-scoped-bringup", good), one(taskset, "dense-te-scoped-bringup", fatal)
    assert g["passed"] and not g["fatal"], g["fatal"]
    assert not f["passed"] and f["fatal"] and f["score"] < f["raw_score"]


def test_negated_concept_does_not_earn_it(taskset):
    ans = one(taskset, "dense-te-scoped-bringup", "You do not need static shapes with graphs.")
    c = [c for c in checks(ans, "concept") if c["name"] == "static shapes"][0]
    assert c["score"] == 0.0 and "negated" in c["explanation"]


def test_moe_setup_from_the_task_is_the_base(taskset):
    ans = one(taskset, "moe-dropless-bringup", "Use `cuda_graph_impl=transformer_engine` with "
              "`cuda_graph_modules=[\"attn\",\"moe_router\",\"moe_preprocess\"]` and `use_te_rng_tracker=True`.")
    v = checks(ans, "validates")
    assert v and v[0]["score"] == 1.0, v


def test_an_error_the_answers_settings_bring_about_is_charged(taskset):
    # The answer turns graphs on without the RNG tracker Bridge asserts for them: its keys are not the
    # rule's keys, but the error is absent from the task's stated setup, so it is the answer's.
    ans = one(taskset, "moe-dropless-bringup", "Use `cuda_graph_impl=transformer_engine` with "
              "`cuda_graph_modules=[\"moe_router\",\"moe_preprocess\"]`.")
    v = checks(ans, "validates")
    assert v and v[0]["score"] == 0.0 and v[0]["fatal"] and "te-rng-tracker" in v[0]["explanation"], v


def test_an_error_of_the_stated_config_is_not_charged_to_an_answer_that_keeps_it(taskset):
    # migrate-016-to-019 states cuda_graph_impl="transformer_engine" in its question; an answer that
    # renames the scope key and restates the same impl is not charged for the tracker the user's recipe
    # has elsewhere. An answer that switches the impl (rng-tracker-assert: TE -> local) is.
    keep = one(taskset, "migrate-016-to-019", 'Keep `cuda_graph_impl="transformer_engine"` and rename: '
               '`cuda_graph_modules=["attn","moe_router"]`.')
    assert checks(keep, "validates")[0]["score"] == 1.0
    switch = one(taskset, "rng-tracker-assert", 'Don\'t patch TE; switch to `cfg.model.cuda_graph_impl = "local"`.')
    assert checks(switch, "validates")[0]["score"] == 0.0


def test_not_in_check_does_not_pass_when_the_key_is_absent(taskset):
    # cpu-offload-conflict: "no cpu offloading with graphs" is a not_in check; silence is not compliance
    silent = one(taskset, "cpu-offload-conflict", "Use `cuda_graph_impl=transformer_engine` with `cuda_graph_modules=[attn]`.")
    c = [c for c in checks(silent, "config") if c["name"] == "no cpu offloading with graphs"][0]
    assert c["score"] < 1.0 and "not set" in c["explanation"]
    off = one(taskset, "cpu-offload-conflict", "Set `model.cpu_offloading=false` and keep TE graphs on attn.")
    c = [c for c in checks(off, "config") if c["name"] == "no cpu offloading with graphs"][0]
    assert c["score"] == 1.0


def test_a_config_the_rules_do_not_read_does_not_earn_validates(taskset):
    ans = one(taskset, "rng-tracker-assert", "Set pin_memory=True in the data loader.")
    v = checks(ans, "validates")[0]
    assert v["score"] == 0.0 and "nothing the CUDA-graph rules check" in v["explanation"]


def test_one_shared_word_is_not_the_questions_subject(taskset):
    ans = one(taskset, "cpu-offload-conflict", "To save memory consider ZeRO sharding of optimizer states.")
    c = checks(ans, "on_topic")[0]
    assert c["score"] == 0.0
