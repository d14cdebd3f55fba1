"""Settings written in sentences and lists the way people write them: "X should be Y", "keep X and
Y on", "- key: value" bullets, a hedge in one clause and a request in the next, "rejects A, so use
B"; labels ("Notes:") and error lines are not config. Answers written for these tests."""

from __future__ import annotations

from skill_tools.evaluation.extract import extract_config

from one_answer import EVALS, bundled_tasks

F = "```"


def _cfg(text: str):
    return extract_config(text).config


def test_should_be_and_keep_on_are_read():
    cfg = _cfg("cuda_graph_impl should be local for this. Keep use_te_rng_tracker and rng.te_rng_tracker on.")
    assert cfg.get("model.cuda_graph_impl") == "local"
    assert cfg.get("model.use_te_rng_tracker") is True and cfg.get("rng.te_rng_tracker") is True


def test_list_items_that_are_one_setting_each_are_read():
    cfg = _cfg("Don't patch TE. Set:\n- model.use_te_rng_tracker: true\n* **rng.te_rng_tracker**: `true`\n")
    assert cfg.get("model.use_te_rng_tracker") is True and cfg.get("rng.te_rng_tracker") is True


def test_a_hedge_in_one_clause_leaves_the_next_clause_a_request():
    cfg = _cfg("Use `cuda_graph_impl=\"transformer_engine\"` with `cuda_graph_modules=[\"attn\"]`, optionally widening "
               "to `[\"attn\",\"mlp\"]` after an A/B; set `model.use_te_rng_tracker=True` and `rng.te_rng_tracker=True`.")
    assert cfg.get("model.cuda_graph_modules") == ["attn"] and cfg.get("rng.te_rng_tracker") is True


def test_an_enumerated_second_option_stays_an_option():
    ex = extract_config("Two ways: (1) selective, e.g. recompute_granularity=\"selective\"; or (2) keep full recompute "
                        "and capture the iteration with cuda_graph_impl=\"full_iteration\".")
    assert not ex.config.has("model.cuda_graph_impl")


def test_a_rejection_before_so_does_not_reach_the_advice_after_it():
    cfg = _cfg("Bridge rejects local with a partial scope, so use `cuda_graph_impl=\"transformer_engine\"` with "
               "`cuda_graph_scope=[\"mlp\"]`.")
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine" and cfg.get("model.cuda_graph_scope") == ["mlp"]


def test_labels_and_error_lines_are_not_config():
    assert not _cfg("Notes:\n- Keep seq length and micro-batch size static.\n- Compare after capture.\n").values
    assert not _cfg(f"{F}\nValueError: CUDA graphs not supported with CPU offloading.\n{F}\n").values


def test_a_manifest_with_capitalised_nested_keys_is_still_yaml():
    text = ("apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nspec:\n  pytorchReplicaSpecs:\n    Worker:\n      replicas: 2\n"
            "      template:\n        spec:\n          containers:\n            - name: pytorch\n              env:\n"
            "                - name: NCCL_GRAPH_REGISTER\n                  value: \"0\"\n")
    assert _cfg(text).env.get("NCCL_GRAPH_REGISTER") == "0"


def test_terse_ground_truth_prose_is_read():
    cfg = _cfg("Under model: cuda_graph_impl: transformer_engine, cuda_graph_modules: [attn] (0.18+ spelling), "
               "use_te_rng_tracker: true; and rng: te_rng_tracker: true.")
    assert cfg.get("model.cuda_graph_modules") == ["attn"] and cfg.get("rng.te_rng_tracker") is True
    assert _cfg("use cuda_graph_impl=\"full_iteration\" with cuda_graph_modules empty.").get("model.cuda_graph_modules") == []
    assert _cfg("Start with cuda_graph_impl=\"transformer_engine\" and modules moe_router + moe_preprocess."
                ).get("model.cuda_graph_modules") == ["moe_router", "moe_preprocess"]
    cfg = _cfg("Bridge now rejects it: use model.cuda_graph_impl=\"transformer_engine\" for scoped capture.")
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine"


def test_every_ground_truth_passes_its_own_task():
    """The task set's ground truths are correct answers written tersely: the scorer passes them.
    local-partial-scope-crash's ground truth names neither the module list ("such as attn or mlp")
    nor the RNG tracker its rubric requires, so it is scored, not required to pass."""
    import json

    from skill_tools.evaluation.score import score_all
    from skill_tools.evaluation.tasks import AnswerRecord

    tasks = json.loads(EVALS.read_text())
    records = [AnswerRecord(t["id"], "with_skill", "ground-truth", t["ground_truth"], i + 1) for i, t in enumerate(tasks)
               if t.get("should_trigger") and t.get("expected_skill") == "megatron-cuda-graphs"]
    report = score_all(bundled_tasks(), records)
    failing = sorted(a["id"] for a in report["answers"] if not a["passed"])
    assert failing == ["local-partial-scope-crash"]


def test_a_file_named_in_a_sentence_is_not_a_key():
    cfg = _cfg("I updated `train.sh` to pass `--cuda-graph-impl full_iteration` and kept `--te-rng-tracker`.")
    assert cfg.get("model.cuda_graph_impl") == "full_iteration" and not any(k.endswith(".sh") for k in cfg.values)


def test_emphasised_negations_and_arrow_verdicts_reject():
    text = ("Keep `cuda_graph_impl=\"local\"` + `cuda_graph_scope=[\"full_iteration\"]`.\n\n"
            "- Do **not** switch to `cuda_graph_impl=\"full_iteration\"` on 0.16.\n"
            "- `cuda_graph_impl=\"full_iteration\"` on 0.16 → rejected (0.18+ only).\n")
    assert _cfg(text).get("model.cuda_graph_impl") == "local"


def test_what_a_library_enforces_is_not_advice_and_quoted_messages_are_not_settings():
    cfg = _cfg("The TE helper enforces `NCCL_GRAPH_REGISTER=0` with expandable segments, so switch: "
               "`cfg.model.cuda_graph_impl = \"local\"`.")
    assert "NCCL_GRAPH_REGISTER" not in cfg.env
    cfg = _cfg("Use `cuda_graph_modules=[]`; setting both fails (\"--cuda-graph-scope and --cuda-graph-modules cannot be "
               "used together.\").")
    assert cfg.get("model.cuda_graph_modules") == []


def test_an_argv_list_in_python_is_the_command_it_spells():
    text = (F + "python\nimport sys\nargv = [\n    \"torchrun\", \"gpt_dynamic_inference.py\",\n"
            "    \"--cuda-graph-impl\", \"local\", \"--cuda-graph-scope\", \"full_iteration_inference\",\n"
            "    *sys.argv[1:],\n]\n" + F + "\n")
    cfg = extract_config(text).select("legacy").config
    assert cfg.get("model.cuda_graph_impl") == "local" and cfg.get("model.cuda_graph_scope") == ["full_iteration_inference"]


def test_drop_the_named_thing_rejects_it():
    from skill_tools.evaluation.polarity import REJECTED, LinePolarity

    line = "Please drop the `transformer_engine/pytorch/distributed.py` monkeypatch from this PR."
    start = line.index("monkeypatch")
    assert LinePolarity(line).at(start, start + len("monkeypatch")).role == REJECTED


def test_a_section_word_before_a_bare_key_places_it():
    cfg = _cfg("Fix: `offline_packing_specs.pad_cu_seqlens = True` and `dataset pad_to_max_length = False`.")
    assert cfg.get("dataset.offline_packing_specs.pad_cu_seqlens") is True
    assert cfg.get("dataset.pad_to_max_length") is False


def test_the_askers_lines_of_a_chat_transcript_are_the_question():
    text = ("[16:20] kim: cpu_offloading=True, cpu_offloading_num_layers=4 + TE graphs on attn, ok?\n"
            "[16:21] ana: no, pick one\n"
            "[16:22] ana: drop activation offloading, keep cuda_graph_impl=transformer_engine + attn\n")
    cfg = _cfg(text)
    assert not cfg.has("model.cpu_offloading") and cfg.get("model.cuda_graph_impl") == "transformer_engine"
