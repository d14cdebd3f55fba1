# megatron-core 0.17: whole-block decode CUDA graphs for the dynamic inference engine.
# 0.17 predates inference_cuda_graph_scope (0.18+), so block-level capture is requested via the
# local implementation's full-iteration scope, which on the inference path wraps the whole
# TransformerBlock forward of a decode step.
config.cuda_graph_impl = "local"
config.cuda_graph_scope = ["full_iteration"]
# capture and replay under the same torch.inference_mode()
