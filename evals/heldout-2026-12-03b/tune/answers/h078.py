# megatron-core 0.17: whole-block decode CUDA graphs for the dynamic inference engine.
#
# inference_cuda_graph_scope does not exist yet on 0.17 (it was added in 0.18). Block-level
# inference capture is the scope value full_iteration_inference of the local implementation,
# added in 0.17 (0.16 only had per-layer local inference graphs):
config.cuda_graph_impl = "local"
config.cuda_graph_scope = ["full_iteration_inference"]
# After upgrading to 0.18+, write the same thing as:
#   config.inference_cuda_graph_scope = "block"
# Capture and replay under the same torch.inference_mode().
