# megatron-core 0.17: whole-block decode graphs = local impl + cuda_graph_scope ["full_iteration_inference"].
# 0.17 has no inference_cuda_graph_scope key (it arrives in 0.18, where the same intent is
# inference_cuda_graph_scope="block"). Don't use ["full_iteration"] here: on 0.17 that builds no
# inference graphs at all. full_iteration_inference is the CudaGraphScope value added in 0.17
# (0.16 only has per-layer local inference graphs).
# In-place edits of serve_config.yaml (a .bak copy is kept):

perl -pi.bak -e 's/^(\s*cuda_graph_impl:).*/$1 local/' serve_config.yaml
perl -pi -e 's/^(\s*cuda_graph_scope:).*/$1 [full_iteration_inference]/' serve_config.yaml
perl -ni -e 'print unless /^\s*inference_cuda_graph_scope:/' serve_config.yaml   # 0.18+ key, unknown on 0.17

# Megatron-LM launcher, same thing as flags:
#   --cuda-graph-impl local --cuda-graph-scope full_iteration_inference \
#   --inference-dynamic-batching-num-cuda-graphs 16 --decode-only-cuda-graphs
# Check: grep -A1 'building cuda graphs' serve.log   -> one graph per batch bucket, not per layer
