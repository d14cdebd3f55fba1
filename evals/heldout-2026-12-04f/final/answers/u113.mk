# graphs.mk — CUDA-graph bring-up for configs/qwen3_30b_a3b.yaml (dropless MoE, alltoall, EP=8)
#
# `make -f graphs.mk recommend` prints the helper's pick. For this config it is
#   impl transformer_engine, modules moe_router + moe_preprocess
# because dropless routing gives data-dependent per-expert token counts (and a DtoH sync in the
# alltoall dispatcher), so the expert compute cannot be captured; router + preprocess are static.
# `attn` is a later A/B, not part of the first step. TE RNG tracker is turned on by apply.

CFG    ?= configs/qwen3_30b_a3b.yaml
OUT    ?= configs/qwen3_30b_a3b.graphs.yaml
MODS   ?= moe_router,moe_preprocess

.PHONY: recommend apply validate ab clean

recommend:
	skill-tools recommend --json $(CFG)

# era-correct keys (cuda_graph_modules on 0.18+, cuda_graph_scope on 0.16/0.17), RNG trackers included
apply: recommend
	skill-tools apply $(CFG) --impl transformer_engine --modules $(MODS) --out $(OUT)

validate: apply
	skill-tools validate --json $(OUT)

# after a short eager run and a short graph run with $(OUT):
ab:
	skill-tools logs eager.log graph.log --json

clean:
	rm -f $(OUT)
