# Debugging NaN grad norm with TE `attn` graphs + EP overlap on Qwen3-235B (Megatron Bridge).
#
# Step 0 — confirm it's replay: run the same recipe with graphs off and graphs on, same seed and data,
#          log every iteration, and compare loss / grad norm after the capture step (warmup 3 -> capture
#          at iteration 4). A graphed run should match eager to bf16 noise from there on; if it drifts
#          long before iteration ~90, replay is using a wrong/stale buffer.
#
# What matches your setup upstream:
#   * Megatron-LM#5966 — Qwen3-235B, TE attn graphs + overlap_moe_expert_parallel_comm, NaN ~iter 91 (open).
#   * TE PR #1204 — TE's fused wgrad accumulation (fuse_wgrad_accumulation / main_grad) flags are not
#     toggled on graph replay, so weight grads get accumulated into main_grad from a stale state.
#     EP-overlap setups normally run delay_wgrad_compute, which pushes the wgrad GEMMs (and their
#     fused accumulation) into the graphed attention backward — that's the path that breaks.
#   * TE PRs #1138/#1233 — parameter order under PP 1F1B (you have PP8 x VPP4).
#
# The override below takes the fused-accumulation path out of the picture while keeping your
# graphs and EP overlap, so you can see whether the NaN goes away with the scope unchanged.

from megatron.bridge.recipes.qwen import qwen3_235b_a22b_pretrain_config  # adjust to your recipe entry


def debug_cfg():
    cfg = qwen3_235b_a22b_pretrain_config()

    # parallelism as in the failing run
    cfg.model.tensor_model_parallel_size = 2
    cfg.model.pipeline_model_parallel_size = 8
    cfg.model.virtual_pipeline_model_parallel_size = 4
    cfg.model.expert_model_parallel_size = 8

    # EP overlap as in the failing run
    cfg.comm_overlap.overlap_moe_expert_parallel_comm = True
    cfg.comm_overlap.delay_wgrad_compute = True

    # graphs exactly as in the failing run (megatron-core 0.18+ spelling)
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = None
    cfg.model.cuda_graph_modules = ["attn"]
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # >>> the experiment: plain (unfused) wgrad accumulation, no TE main_grad fusion on replay
    cfg.model.gradient_accumulation_fusion = False

    # keep NaN detection on: TE-scoped graphs leave the checks outside the capture
    cfg.rerun_state_machine.check_for_nan_in_loss = True
    cfg.ddp.check_for_nan_in_grad = True

    # determinism for the A/B
    cfg.rng.seed = 1234
    cfg.logger.log_interval = 1
    cfg.train.train_iters = 140
    return cfg


# How to read the result:
#   - clean with gradient_accumulation_fusion=False  -> it's the TE #1204 flag issue; keep fusion off with
#     graphs until you're on a TE that has the fix, then turn it back on and re-check.
#   - still NaN -> drop `attn` (try cuda_graph_modules=["moe_router", "moe_preprocess"]) or turn EP overlap
#     off; clean there = Megatron-LM#5966. Upgrade TE + megatron-core together and re-run the A/B,
#     comparing loss curves step by step; keep graphs off for this combination until it's fixed upstream.
