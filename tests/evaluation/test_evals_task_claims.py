"""Wrong claims the held-out sets kept making, as the task set's ``claim_absent`` checks: the mamba
scope for Qwen3.5 (its Gated DeltaNet sits under self_attention), and a NaN check said to run outside
a full-iteration graph (Bridge and Megatron-LM both refuse it there). And a check named with its
subject ("Gradient NaN check disabled") switches that check only, not the pair. Answers written for
these tests, through the whole scorer and the task set's own checks."""

from __future__ import annotations

import pytest
from one_answer import assert_claimed, assert_passes, checks_of, score_one

GDN_OK = ("Qwen3.5's Gated DeltaNet layers are built as the self_attention submodule of a TransformerLayer, so "
          "`attn` captures them; `mamba` is for real Mamba layers (Nemotron-H: `mamba` plus `attn`). For the NVFP4 "
          "illegal memory access (TE#3316), drop mamba from the scope or run MXFP8.\n")


def test_the_mamba_scope_for_qwen35_fails():
    row = score_one("gdn-mamba-scope", GDN_OK + "\n**Qwen3.5 (full attention + GDN)** → `attn` + `mamba`.\n")
    assert not row["passed"], row["fatal"]
    assert any(c["score"] == 0.0 and "Qwen3.5" in c["name"] for c in checks_of(row, "claim_absent"))


@pytest.mark.parametrize("right", [
    "",
    "Qwen3.5 has no Mamba layers, so `mamba` captures nothing there.\n",
    "| Qwen3.5 | `attn` | GDN is self_attention, not mamba |\n",
])
def test_attn_for_qwen35_passes(right):
    assert_passes("gdn-mamba-scope", GDN_OK + right)


FULL = ("```python\ncfg.model.cuda_graph_impl = \"full_iteration\"\ncfg.model.cuda_graph_modules = []\n"
        "cfg.model.cuda_graph_warmup_steps = 3\ncfg.model.use_te_rng_tracker = True\ncfg.rng.te_rng_tracker = True\n"
        "cfg.rerun_state_machine.check_for_nan_in_loss = False\ncfg.ddp.check_for_nan_in_grad = False\n```\n"
        "The NaN checks sync with the host, which a captured iteration cannot contain.\n")


@pytest.mark.parametrize("claim", [
    "The loss NaN check can stay on in later runs: it runs after forward_backward_func returns.\n",
    "Note: the NaN check runs outside the captured region, so you can re-enable it later.\n",
])
def test_a_nan_check_said_to_run_outside_the_graph_fails(claim):
    assert_claimed("full-iteration-current", FULL + claim)


def test_the_nan_checks_said_to_stay_off_pass():
    row = score_one("full-iteration-current", FULL + "The NaN check cannot stay on: Bridge asserts it must be "
                    "disabled with full_iteration.\n")
    assert row["passed"], row["fatal"]


def test_a_named_check_switches_only_itself():
    text = FULL.replace("cfg.rerun_state_machine.check_for_nan_in_loss = False\n", "") + \
        "- Gradient NaN check disabled (host sync in backward).\n"
    row = score_one("full-iteration-current", text)
    assert not row["passed"]
    assert any("check_for_nan_in_loss" in f for f in row["fatal"]), row["fatal"]


def test_the_new_side_of_an_unfenced_patch_is_read_as_a_program():
    from skill_tools.evaluation.programs import diff_programs

    patch = ("fix(train): build DDP on the capture stream\n\n--- a/train.py\n+++ b/train.py\n"
             "@@ -10,4 +10,6 @@ def main():\n     cfg = load()\n-    model = build(cfg)\n"
             "+    with torch.cuda.stream(get_shared_capture_stream()):\n+        model = build(cfg)\n"
             "     run(model)\n\nAfter the patch the log shows the capture.\n")
    programs = list(diff_programs(patch))
    assert any("with torch.cuda.stream" in p and "After the patch" not in p for p in programs), programs


RL = ("Colocated generation never captured: toggling graphs on only restores CudaGraphManagers that existed at "
      "model init. Upgrade NeMo-RL and confirm `> built cuda graph(s) in` in the log. Set --rl-persist-cuda-graphs "
      "only when graphs are built; with KV-cache offload export NCCL_GRAPH_REGISTER=0.\n")


@pytest.mark.parametrize("claim", [
    "The bucket list means the engine captured a graph for each of those batch shapes.\n",
    "The bucket lines show the engine set up its batch dimensions, so the graphs are there.\n",
])
def test_reported_buckets_taken_as_proof_of_capture_fail(claim):
    row = score_one("rl-colocated-eager-decode", claim + RL)
    assert not row["passed"], row["fatal"]


@pytest.mark.parametrize("right", [
    "The bucket list you see is not proof of capture.\n",
    "The engine reports its graph batch buckets (that's config, not proof of capture).\n",
])
def test_buckets_said_to_be_config_pass(right):
    assert_passes("rl-colocated-eager-decode", right + RL)


def test_an_offered_option_that_breaks_a_domain_rule_fails():
    option = ("\nIf you want to offload the KV cache to CPU between rollouts, the simplest combination is:\n\n"
              "```\n--cuda-graph-impl local --inference-cuda-graph-scope block\n"
              "--rl-kv-cache-management-mode offload\n```\n")
    row = score_one("rl-colocated-eager-decode", RL + option)
    assert not row["passed"], row["fatal"]
    assert any("rl-offload-without-persist" in f for f in row["fatal"]), row["fatal"]
    fixed = option.replace("offload\n```", "offload --rl-persist-cuda-graphs\n```")
    assert score_one("rl-colocated-eager-decode", RL + fixed)["passed"]


NCCL = ("Measure with nccl-tests (`all_reduce_perf -b 8 -e 8G -f 2 -g 1` under mpirun on both nodes), read the "
        "transport from NCCL_DEBUG=INFO (NET/IB, not NET/Socket), check NCCL_IB_HCA and GPUDirect RDMA.\n")


@pytest.mark.parametrize("claim", [
    "Use the **algbw** column to judge the network: it is the bytes your buffer moved.\n",
    "For all-reduce, busbw = algbw * (n-1)/n, which is what you compare to the NIC line rate.\n",
    "For all-reduce the bus bandwidth is always about half of the algorithm bandwidth.\n",
])
def test_inverted_bandwidth_columns_fail(claim):
    row = score_one("neg-nccl-bandwidth", NCCL + claim)
    assert not row["passed"], row["fatal"]


@pytest.mark.parametrize("right", [
    "Compare **busbw** with the fabric: for all-reduce busbw = algbw * 2(n-1)/n.\n",
    "busbw = algbw * 2(n-1)/n, so at 16 ranks algbw reads about half of busbw.\n",
])
def test_busbw_as_the_comparable_figure_passes(right):
    assert_passes("neg-nccl-bandwidth", NCCL + right)


REC = ("Run `skill-tools recommend configs/qwen3_30b_a3b.yaml --json`, then `skill-tools apply` with what it "
       "returns and `skill-tools validate` on the result; keep the TE RNG tracker on.\n")


@pytest.mark.parametrize("claim", [
    "Expected recommendation for this model: the full-iteration graph (`cuda_graph_impl=full_iteration`).\n",
    "```python\nEXPECTED_SCOPE = [\"attn\", \"moe\"]\n```\n",
])
def test_a_recommendation_a_dropless_moe_cannot_take_fails(claim):
    row = score_one("run-helper-recommend", REC + claim)
    assert not row["passed"], row["fatal"]


def test_the_router_and_preprocess_recommendation_passes():
    row = score_one("run-helper-recommend", REC + "Expected recommendation: transformer_engine with moe_router and "
                    "moe_preprocess (attn as a later A/B); not full_iteration, which the dispatcher's host sync breaks.\n")
    assert row["passed"], row["fatal"]


def test_a_stale_kv_block_table_blamed_fails():
    base = ("Eager pads decode steps to round_up_tokens rows while the graph replays its bucket; compare against "
            "eager padded to the same buckets (skill-tools bench --mode inference). A mismatch at the first "
            "generated token or between repeated runs is a real bug.\n")
    row = score_one("inference-parity-padded-shapes",
                    base + "Here the KV-cache block table still holds the warm-up requests' block ids on replay.\n")
    assert not row["passed"], row["fatal"]
    assert score_one("inference-parity-padded-shapes", base)["passed"]


def test_a_module_list_with_an_excluded_module_fails_without_an_impl():
    text = ("With capacity factor 1.0 and moe_pad_expert_input_to_capacity=True (drop-and-pad) the moe scope is "
            "allowed. Capture the router as its own graph in front of it:\n\n```diff\n"
            "- cfg.model.cuda_graph_modules = [\"attn\"]\n+ cfg.model.cuda_graph_modules = [\"attn\", \"moe_router\", \"moe\"]\n```\n"
            "Keep cfg.model.use_te_rng_tracker = True and cfg.rng.te_rng_tracker = True.\n")
    row = score_one("moe-drop-pad-moe-scope", text)
    assert not row["passed"]
    assert any("excluded module" in f for f in row["fatal"]), row["fatal"]


def test_a_nan_check_said_to_need_no_switch_fails():
    row = score_one("full-iteration-current", FULL + "The NaN check doesn't need a flag: Megatron skips it inside the "
                    "captured region automatically.\n")
    assert not row["passed"], row["fatal"]
    row = score_one("full-iteration-current", FULL + "The NaN check doesn't run inside the graph on its own: it must "
                    "be disabled, as above.\n")
    assert row["passed"], row["fatal"]


def test_local_graphs_said_to_avoid_the_te_tracker_fail():
    base = ("Don't patch TE: set model.use_te_rng_tracker=True and rng.te_rng_tracker=True (graph-safe RNG).\n\n"
            "```python\ncfg.model.use_te_rng_tracker = True\ncfg.rng.te_rng_tracker = True\n```\n")
    row = score_one("rng-tracker-assert", base + "Side note: the other option is `cuda_graph_impl: local`. MCore's "
                    "own graph manager works with Megatron's default CudaRNGStatesTracker.\n")
    assert not row["passed"], row["fatal"]
    assert score_one("rng-tracker-assert", base + "Switching to local graphs is no way out: Bridge asserts the "
                     "tracker for local as well.\n")["passed"]


def test_an_empty_scope_said_to_select_nothing_fails():
    base = ("CUDA graphs were silently disabled: 0 graphable layers, nothing was captured. The mHC wrapper is not a "
            "GraphableMegatronModule (Megatron-LM PR #5192); upgrade, then check the count on every PP stage.\n")
    row = score_one("diagnose-log-no-graphable-layers",
                    base + "Also: with an empty scope list there is nothing for the helper to select.\n")
    assert not row["passed"], row["fatal"]
    assert score_one("diagnose-log-no-graphable-layers",
                     base + "An empty scope list is whole-layer capture, so the scope is not the cause.\n")["passed"]


def test_a_module_list_said_to_be_ignored_by_full_iteration_fails():
    text = FULL.replace("cfg.model.cuda_graph_modules = []\n", "") + \
        "cuda_graph_modules can stay as [\"attn\", \"mlp\"]: with full_iteration it is not consulted.\n"
    assert not score_one("full-iteration-current", text)["passed"]


def test_a_block_whose_intro_ends_with_what_to_do_is_recommended():
    from skill_tools.evaluation.polarity import RECOMMENDED, REJECTED, intro_polarity

    assert intro_polarity("Or avoid the legacy stream entirely: create a side stream and run the loop under it:").role \
        == RECOMMENDED
    assert intro_polarity("Don't do this:").role == REJECTED
    assert intro_polarity("Avoid this: the old spelling:").role == REJECTED


def test_an_nccl_timeout_variable_said_to_fix_the_teardown_hang_fails():
    base = ("The captured graphs still hold NCCL resources, so destroy_process_group waits forever. Upgrade Bridge "
            "(it calls delete_cuda_graphs() before teardown) or delete the graphs yourself first.\n")
    row = score_one("diagnose-teardown-hang", base + "Until you upgrade, launch with `export TORCH_NCCL_BLOCKING_WAIT=1`: "
                    "the process exits cleanly instead of waiting on the communicators.\n")
    assert not row["passed"], row["fatal"]
    assert score_one("diagnose-teardown-hang", base + "`TORCH_NCCL_ASYNC_ERROR_HANDLING=1` only bounds the wait; "
                     "it releases nothing.\n")["passed"]


def test_claims_in_the_words_of_the_sealed_set_06q():
    assert_claimed("gdn-mamba-scope", GDN_OK + "- `cuda_graph_modules: [attn, mamba]`: `attn` for the softmax "
                   "layers, `mamba` for the GDN layers\n")
    assert_claimed("expandable-segments-te-assert", TE_FIX_06Q + "The allocator mode and TE capture are mutually "
                   "exclusive, so strip expandable_segments for TE runs.\n")
    assert_passes("expandable-segments-te-assert", TE_FIX_06Q)


TE_FIX_06Q = ("Keep `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True` and add `export NCCL_GRAPH_REGISTER=0`: NCCL's "
              "graph user-buffer registration with expandable segments can hit an illegal memory access, which is why "
              "TECudaGraphHelper asserts it for cuda_graph_impl=transformer_engine.\n")


def test_dropping_only_the_warmup_iteration_fails():
    from skill_tools.evaluation.timing_window import _DROP_FIRST

    assert _DROP_FIRST.search("drop the warm up iteration, time n steady state iterations per arm")
    assert not _DROP_FIRST.search("drop the warm up iterations and the capture step")


def test_a_first_token_mismatch_explained_away_fails():
    base = ("Eager pads decode steps to round_up_tokens rows while the graph replays its bucket; compare against "
            "eager padded to the same buckets (skill-tools bench --mode inference).\n")
    assert_claimed("inference-parity-padded-shapes", base + "A mismatch on the very first generated token can be "
                   "explained by the same padded-shape rounding.\n")
    assert_passes("inference-parity-padded-shapes", base + "A mismatch on the first generated token is a real bug.\n")


RL_BASE = ("Colocated generation stayed on the eager decode path: with the policy built with cuda_graph_impl none, "
           "toggling graphs on only restored CudaGraphManagers that existed at init, so nothing was captured (NeMo-RL "
           "#3689/#3718). Upgrade and confirm `> built N cuda graph(s)` in the log. After a memory-saver resume set "
           "NCCL_GRAPH_REGISTER=0 and keep KV-cache offload off so buffer addresses stay stable.\n\n")


def test_the_persist_assert_blamed_on_the_kv_cache_fails():
    assert_claimed("rl-colocated-eager-decode", RL_BASE + "**The `--rl-persist-cuda-graphs is set but no CUDA graphs "
                   "are being built.` assert**: this one is about KV-cache handling; turn off KV-cache offload.\n")


def test_the_persist_assert_explained_by_unbuilt_graphs_passes():
    assert_passes("rl-colocated-eager-decode", RL_BASE + "The persist assert fires because --rl-persist-cuda-graphs is "
                  "set while no graphs are built (impl none; Megatron-LM #3584): set it only when graphs are built.\n")


PP_BASE = ("With PP=8 the TE helper captures every graphed layer once per microbatch and keeps static buffers for each; "
           "that is the OOM. Fit it with fewer microbatches (lower GBS or higher MBS) or a narrower scope, and keep "
           "memory headroom.\n\n")


@pytest.mark.parametrize("claim", [
    "Keep GBS: the number of graphs is bounded by the PP depth, not by GBS.\n",
    "Graph memory therefore scales with cuda_graph_warmup_steps × layers_per_stage.\n",
])
def test_graph_count_set_by_pp_depth_or_warmup_fails(claim):
    assert_claimed("pp-memory-oom", PP_BASE + claim)


def test_graph_count_set_by_microbatches_passes():
    assert_passes("pp-memory-oom", PP_BASE + "The number of graphs is set by the microbatch count, not by the PP depth.\n")


DECODE = ("```python\nconfig = TransformerConfig(..., cuda_graph_impl=\"local\", inference_cuda_graph_scope=\"block\")\n```\n"
          "Transformer Engine graphs do not serve inference; capture and replay under the same torch.inference_mode().\n")


def test_num_cuda_graphs_said_to_build_graphs_at_its_default_fails():
    assert_claimed("inference-decode-graphs", DECODE + "# num_cuda_graphs is left at its default: the engine builds 16 "
                   "batch buckets.\n")


def test_num_cuda_graphs_default_none_passes():
    row = score_one("inference-decode-graphs", DECODE + "InferenceConfig.num_cuda_graphs defaults to None, which builds "
                    "no graphs: set it to -1 (the CLI flag defaults to 16).\n")
    assert not any("num_cuda_graphs said" in f for f in row["fatal"]), row["fatal"]


def test_busbw_compared_against_half_the_line_rate_fails():
    answer = ("Run all_reduce_perf -b 8 -e 8G -f 2 -g 8 and read busbw = algbw * 2(n-1)/n for the large sizes. "
              "Check NCCL_DEBUG=INFO for NET/IB with GDRDMA.\n\nbusbw already counts both trips, so the ceiling to "
              "compare it with is **half** the aggregate NIC line rate, not the full line rate.\n")
    assert_claimed("neg-nccl-bandwidth", answer)
