# Debugging NaN-with-graphs on Qwen3-235B (TP2 PP8 VPP4 EP8, EP overlap, TE attn graphs)
# Plan: confirm -> narrow -> upgrade -> re-compare. Same seed and data order in every arm.
#
# Likely suspects, in order:
#   - partial graphs + overlap_moe_expert_parallel_comm schedule interleaving (Megatron-LM#5966, still open)
#   - TE graph param ordering under PP 1F1B (TE PRs #1138/#1233, fixed in newer TE)
#   - fuse_wgrad_accumulation not toggled on replay (TE PR #1204) -- keep gradient_accumulation_fusion ON,
#     delayed wgrad + graphs needs it; fix by upgrading TE, not by turning fusion off
#   - eval replaying the training graphs (MLM PR #6992) -> look at whether the spike follows a validation pass

COMMON="model.seed=1234 train.train_iters=150 logger.log_interval=1"

# A: eager control
python run_recipe.py $COMMON model.cuda_graph_impl=none                                  2>&1 | tee A_eager.log
# B: the failing config
python run_recipe.py $COMMON model.cuda_graph_impl=transformer_engine 'model.cuda_graph_modules=[attn]' \
    model.use_te_rng_tracker=True rng.te_rng_tracker=True                                2>&1 | tee B_graphs.log
# C: graphs, EP overlap off -> isolates the #5966 interaction
python run_recipe.py $COMMON model.cuda_graph_impl=transformer_engine 'model.cuda_graph_modules=[attn]' \
    model.use_te_rng_tracker=True rng.te_rng_tracker=True comm_overlap.overlap_moe_expert_parallel_comm=False \
                                                                                         2>&1 | tee C_graphs_noepov.log

# Compare loss + grad norm per iteration across A/B/C (divergence long before iter 90 = replay mismatch).
# Then: upgrade TE + MCore, rerun B, compare against A again.
# Until B matches A after the upgrade, keep graphs off for this EP-overlap combination.
# (on mcore 0.16/0.17 spell the scope cuda_graph_scope instead of cuda_graph_modules)
