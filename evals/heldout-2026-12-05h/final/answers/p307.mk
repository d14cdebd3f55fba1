# Makefile: bisect "grad norm -> NaN at ~iter 90 with TE attn graphs" (Qwen3-235B, TP2 PP8 VPP4 EP8,
# overlap_moe_expert_parallel_comm, cuda_graph_impl=transformer_engine, scope attn).
#
# Treat it as a graph-REPLAY numerics bug until proven otherwise: eager is fine, graphs are not.
# Known causes that match this shape:
#   - partial (attn) graphs interleaved with the EP-overlap (A2A overlap) schedule:
#     Megatron-LM#5966 -- same model, same scope, NaN at iter ~91; still open.
#   - TE graph parameter/buffer order under PP 1F1B / interleaved schedules
#     (Megatron-LM#422, TE PRs #1138, #1233).
#   - fuse_wgrad_accumulation flags not toggled on replay (TE PR #1204): keep
#     gradient_accumulation_fusion=True, which delayed wgrad + graphs require anyway.
#   - FSDP hooks captured in the wrong phase (TE PR #2831) -- n/a unless you use Megatron-FSDP.
#   - validation replaying the training graphs (Megatron-LM PR #6992) -- check if the spike
#     follows an eval interval.
#   - NVFP4 + mamba scope IMA after validation (TE#3316) -- n/a for this model, same family.
# Order: confirm -> narrow -> upgrade -> compare curves. Keep graphs off for this combination
# until a fixed TE/MCore passes the loss-curve comparison.

SEED   ?= 1234
ITERS  ?= 150
RUN    = python scripts/training/run_recipe.py --recipe $(RECIPE) train.train_iters=$(ITERS) rng.seed=$(SEED)
GRAPH  = model.cuda_graph_impl=transformer_engine model.use_te_rng_tracker=true rng.te_rng_tracker=true

.PHONY: confirm narrow-no-overlap narrow-no-graph upgrade-check compare

confirm:            ## 1. same seed, same data order: eager vs attn graphs
	$(RUN) model.cuda_graph_impl=none            > eager.log 2>&1
	$(RUN) $(GRAPH) model.cuda_graph_modules=[attn] > graph_attn.log 2>&1

narrow-no-overlap:  ## 2a. keep attn graphs, drop EP overlap -> isolates MLM#5966
	$(RUN) $(GRAPH) model.cuda_graph_modules=[attn] comm_overlap.overlap_moe_expert_parallel_comm=false \
	    > graph_attn_no_a2a_overlap.log 2>&1

narrow-no-graph:    ## 2b. keep EP overlap, graph only the router path (attn eager)
	$(RUN) $(GRAPH) model.cuda_graph_modules=[moe_router,moe_preprocess] model.gradient_accumulation_fusion=true \
	    > graph_router.log 2>&1

upgrade-check:      ## 3. record the stack before/after upgrading TE + MCore
	python -c "import transformer_engine as te, megatron.core as m; print(te.__version__, m.__version__)"

compare:            ## 4. loss + grad-norm curves step by step, not only the final loss
	skill-tools logs eager.log graph_attn.log --json > cmp_attn.json
	skill-tools logs eager.log graph_attn_no_a2a_overlap.log --json > cmp_no_overlap.json
	skill-tools logs eager.log graph_router.log --json > cmp_router.json
	@echo "Same seed: graphed loss should track eager to bf16 noise; first divergence step tells you which config to blame."
