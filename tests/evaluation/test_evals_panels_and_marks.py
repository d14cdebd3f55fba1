"""Forms answers take that the readers must see through: box-drawn cards (a crossed-out line
rejects its setting; a panel's hard-wrapped sentence is one clause), an ellipsis after a flag
("--cuda-graph-impl transformer_engine ..."), a workflow template's placeholder in a
``skill-tools`` command (``~{size}``, ``{{ cfg }}``), a block introduced as "add the new key next
to the old one", a verb that applies an object to the subject after it ("TE graphs: the helper can
also capture decode"), and two versions of a kernel in two blocks (a domain rule whose conditions
must meet in one program). Answers written for these tests, through the whole scorer."""

from __future__ import annotations

from one_answer import checks_of, score_one

F = "```"

CARD = f"""{F}
┌──────────────────────────────────────────────────────────┐
│  megatron-core 0.16.1 · TE graphs · dense                │
├──────────────────────────────────────────────────────────┤
│  model.cuda_graph_impl=transformer_engine                │
│  model.cuda_graph_scope=[attn,mlp]                       │
│  model.cuda_graph_warmup_steps=3                         │
│  model.use_te_rng_tracker=true rng.te_rng_tracker=true   │
├──────────────────────────────────────────────────────────┤
│  ✗ cuda_graph_impl=full_iteration  → 0.18+ only          │
│  ✗ cuda_graph_modules=[attn,mlp]   → not in 0.16.1       │
└──────────────────────────────────────────────────────────┘
{F}
"""


def test_a_crossed_out_line_of_a_card_is_not_read_as_a_setting():
    row = score_one("dense-bringup-legacy-016", CARD)
    assert row["config"]["values"]["model.cuda_graph_impl"] == "transformer_engine", row["config"]
    assert "model.cuda_graph_modules" not in row["config"]["values"]
    assert row["passed"], row["fatal"]


def test_an_ellipsis_after_a_flag_is_not_its_value():
    answer = ("Keep expandable segments and turn graph registration off:\n\n"
              f"{F}bash\nexport PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\nexport NCCL_GRAPH_REGISTER=0\n"
              f"torchrun pretrain_gpt.py --cuda-graph-impl transformer_engine ...\n{F}\n\n"
              "TE's graph capture asserts on expandable segments unless NCCL_GRAPH_REGISTER=0 (user-buffer "
              "registration would register memory that expandable segments remap).\n")
    row = score_one("expandable-segments-te-assert", answer)
    assert row["config"]["values"].get("model.cuda_graph_impl") == "transformer_engine", row["config"]
    assert row["passed"], row["fatal"]


BENCH = ("Run the matched A/B and read the speedup CI, not one step; check launch-boundness first:\n\n"
         "{cmd}\n\nbench excludes warm-up and the capture step and reports median step time with bootstrap "
         "95% confidence intervals.\n")


def test_a_template_placeholder_in_a_command_is_a_value_the_user_fills_in():
    for cmd in ("    command <<<\n      skill-tools precheck --workload dense --size ~{size} --json\n"
                "      skill-tools bench --config ~{config} --json\n    >>>",
                f"{F}yaml\n- run: skill-tools precheck --workload dense --size {{{{ inputs.size }}}} --json\n"
                f"- run: skill-tools bench --config {{{{ inputs.cfg }}}} --json\n{F}"):
        row = score_one("run-helper-bench", BENCH.format(cmd=cmd))
        (check,) = checks_of(row, "tool_commands")
        assert check["score"] == 1.0, check


def test_a_bad_choice_is_still_refused():
    row = score_one("run-helper-bench", BENCH.format(
        cmd=f"{F}bash\nskill-tools precheck --workload dense --size huge --json\nskill-tools bench --config c.yaml --json\n{F}"))
    (check,) = checks_of(row, "tool_commands")
    assert check["score"] == 0.0 and "invalid choice" in check["explanation"]


def test_a_block_that_adds_the_new_key_next_to_the_old_one_is_recommended():
    answer = ("Keep the impl. Add the new key next to the old one, so leaving the old line in keeps the recipe "
              "loadable on both clusters:\n\n"
              f"{F}python\ncfg.model.cuda_graph_impl = \"transformer_engine\"\ncfg.model.cuda_graph_scope = "
              "[\"attn\", \"moe_router\"]\ncfg.model.cuda_graph_modules = [\"attn\", \"moe_router\"]\n"
              f"cfg.model.use_te_rng_tracker = True\ncfg.rng.te_rng_tracker = True\n{F}\n")
    row = score_one("migrate-016-to-019", answer)
    assert row["blocks"][0]["role"] == "suggested", row["blocks"][0]
    assert not row["passed"]  # 0.18+ refuses cuda_graph_scope beside cuda_graph_modules


def test_a_panels_wrapped_sentence_is_one_clause():
    answer = ("┌─ Qwen3.5 ─────────────────────────────────────────────┐\n"
              "│  Gated DeltaNet is a linear-recurrent mixer, same as  │\n"
              "│  Mamba-2, so its layers go under the mamba scope.     │\n"
              "└───────────────────────────────────────────────────────┘\n\n"
              "Nemotron-H has real Mamba layers: `mamba` plus `attn`. Compare post-capture steps with eager.\n")
    row = score_one("gdn-mamba-scope", answer)
    (check,) = [c for c in checks_of(row, "claim_absent") if c["name"] == "GDN under mamba"]
    assert check["score"] == 0.0, check


def test_a_panel_of_separate_sentences_binds_nothing_across_lines():
    answer = ("┌─ Qwen3.5 ─────────────────────────────────────────────┐\n"
              "│  Gated DeltaNet sits in self_attention: use attn.     │\n"
              "│  Mamba-2 layers (Nemotron-H) go under the mamba scope. │\n"
              "└───────────────────────────────────────────────────────┘\n")
    row = score_one("gdn-mamba-scope", answer)
    (check,) = [c for c in checks_of(row, "claim_absent") if c["name"] == "GDN under mamba"]
    assert check["score"] is None, check


DECODE = ("Use `cuda_graph_impl: local` with `inference_cuda_graph_scope: block` on megatron-core 0.19; keep the "
          "same inference_mode for capture and replay and static MoE shapes; on 0.17 write "
          "`cuda_graph_scope: [full_iteration_inference]`.\n\n")


def test_a_verb_that_applies_te_graphs_to_decode_is_a_claim():
    row = score_one("inference-decode-graphs", DECODE + "- **`transformer_engine` graphs**: TE's graph helper can "
                    "also capture decode with the layer scope.\n")
    (check,) = [c for c in checks_of(row, "claim_absent") if c["name"] == "TE or full-iteration graphs for decode"]
    assert check["score"] == 0.0, check


KERNEL_A = (f"{F}python\n@triton.autotune(configs=[triton.Config({{}}, num_warps=w) for w in (4, 8)], key=['n_cols'])\n"
            "@triton.jit\ndef softmax_kernel(y, x, n_cols, BLOCK_SIZE: tl.constexpr):\n    cols = tl.arange(0, BLOCK_SIZE)\n\n"
            f"softmax_kernel[(rows,)](y, x, n_cols, BLOCK_SIZE=triton.next_power_of_2(n_cols))\n{F}\n")
KERNEL_B = (f"{F}python\n@triton.autotune(configs=[triton.Config({{'BLOCK_SIZE': 1024}}, num_warps=8)], key=['n_cols'])\n"
            "@triton.jit\ndef softmax_kernel(y, x, n_cols, BLOCK_SIZE: tl.constexpr):\n"
            f"    for off in tl.range(0, n_cols, BLOCK_SIZE):\n        pass\n\nsoftmax_kernel[(rows,)](y, x, n_cols)\n{F}\n")


def test_two_versions_of_a_kernel_in_two_blocks_are_two_programs():
    answer = ("BLOCK_SIZE covers the row: next power of two of n_cols; autotune warps, benchmark with "
              "triton.testing.do_bench.\n\n" + KERNEL_A + "\nFor long rows loop over the row instead:\n\n" + KERNEL_B)
    (check,) = checks_of(score_one("neg-triton-kernel", answer), "domain")
    assert check["score"] is None, check


def test_the_same_mistake_in_one_block_still_fires():
    one = KERNEL_B.replace("softmax_kernel[(rows,)](y, x, n_cols)", "softmax_kernel[(rows,)](y, x, n_cols, BLOCK_SIZE=1024)")
    (check,) = checks_of(score_one("neg-triton-kernel", "Autotune it:\n\n" + one), "domain")
    assert check["score"] == 0.0 and "[triton-autotuned-meta-passed-at-launch" in check["explanation"], check


def test_python_inside_a_workflow_template_is_read_with_its_placeholders_as_values():
    answer = ("The process writes this script and runs it with torchrun:\n\n"
              f"{F}python\nfrom megatron.bridge.recipes.llama import ${{params.recipe}}\n"
              "from megatron.bridge.training.pretrain import pretrain\n\n"
              "cfg = ${params.recipe}()\n"
              'cfg.model.cuda_graph_impl = "full_iteration"\ncfg.model.cuda_graph_scope = None\n'
              "cfg.model.cuda_graph_modules = []\ncfg.model.cuda_graph_warmup_steps = ~{warmup}\n"
              "cfg.rerun_state_machine.check_for_nan_in_loss = False\ncfg.ddp.check_for_nan_in_grad = False\n"
              f"cfg.model.use_te_rng_tracker = True\ncfg.rng.te_rng_tracker = True\n{F}\n\n"
              "Measure later iterations against an eager run (cuda_graph_impl=\"none\", same seed); keep shapes static.\n")
    row = score_one("full-iteration-current", answer)
    assert row["config"]["values"]["model.cuda_graph_impl"] == "full_iteration", row["config"]
    assert not [f for f in row["findings"] if f["kind"] == "parse"], row["findings"]


def test_text_that_parses_is_left_alone():
    from skill_tools.evaluation.doc_fences import untemplated_python
    assert untemplated_python('x = "${HOME}"\n') == 'x = "${HOME}"\n'
    assert untemplated_python("cfg = ${params.recipe}()\n") == "cfg = TEMPLATE_VALUE()\n"
