# megatron-core 0.17, dynamic inference engine: whole-block decode graphs
model_config.cuda_graph_impl = "local"
model_config.inference_cuda_graph_scope = "block"   # whole TransformerBlock per decode step
# ("layer" would give per-layer graphs instead)
