#!/usr/bin/env bats
#
# moe recompute vs. moe_router CUDA graph -- what the error means and the two ways out.
#
# The assert (megatron/core/transformer/transformer_config.py, 0.16 through 0.19):
#
#     if self.cuda_graph_impl == "transformer_engine" and "moe" in self.recompute_modules:
#         assert CudaGraphModule.moe_router not in self.cuda_graph_modules, \
#             "moe recompute is not supported with moe_router CUDA graph with: "
#         "--cuda-graph-impl transformer_engine."
#
# The message ends in a dangling "with: " because the second string is a separate expression
# statement, not part of the assert message; the intended text is
# "... moe_router CUDA graph with: --cuda-graph-impl transformer_engine."
#
# Why it is refused: recompute_modules=["moe"] checkpoints the whole MoE block (router included)
# and re-runs it in backward. The router (and moe_preprocess) are inside a TE-graphed region, so
# the recompute region would wrap / re-run graphed code. A recomputed module has to lie entirely
# inside or entirely outside the graph scope.
#
# Fix 1 (keeps the router graphs, usually the better trade): stop recomputing "moe"; recompute
#   pieces outside the graphed region instead -- "moe_act" (expert activation), "layernorm".
# Fix 2: keep recompute of "moe" and graph only attention (drop moe_router + moe_preprocess;
#   moe_preprocess cannot stay without moe_router anyway).
#
# Both keep cuda_graph_impl="transformer_engine" and the TE RNG tracker. Re-check memory after
# Fix 1: moe_act recompute saves less than recomputing the whole MoE block.

write_cfg() {
  cat > "$BATS_TEST_TMPDIR/cfg.yaml" <<EOF
model:
  num_moe_experts: 64
  moe_token_dispatcher_type: alltoall
  recompute_granularity: selective
  recompute_modules: $1
  cuda_graph_impl: transformer_engine
  cuda_graph_scope: null
  cuda_graph_modules: $2
  cuda_graph_warmup_steps: 3
  use_te_rng_tracker: true
rng:
  te_rng_tracker: true
EOF
}

@test "original config is refused (moe recompute + moe_router graph)" {
  write_cfg '[moe, layernorm]' '[attn, moe_router, moe_preprocess]'
  run skill-tools validate --mcore-version 0.19 "$BATS_TEST_TMPDIR/cfg.yaml"
  [ "$status" -eq 1 ]
}

@test "fix 1: recompute moe_act + layernorm, keep router graphs" {
  write_cfg '[moe_act, layernorm]' '[attn, moe_router, moe_preprocess]'
  run skill-tools validate --mcore-version 0.19 "$BATS_TEST_TMPDIR/cfg.yaml"
  [ "$status" -eq 0 ]
}

@test "fix 2: keep moe recompute, graph attention only" {
  write_cfg '[moe, layernorm]' '[attn]'
  run skill-tools validate --mcore-version 0.19 "$BATS_TEST_TMPDIR/cfg.yaml"
  [ "$status" -eq 0 ]
}

# megatron-core 0.16/0.17: same fixes, but the list key is cuda_graph_scope
# (e.g. cuda_graph_scope: [attn, moe_router, moe_preprocess]) and there is no cuda_graph_modules.
