# Decision: keep activation offloading, no CUDA graphs for now.
cfg.model.cpu_offloading = True
cfg.model.cpu_offloading_num_layers = 4
cfg.model.cuda_graph_impl = "none"

# Later, to get graphs back without losing the offload code path, keep
# cpu_offloading=True but set cpu_offloading_num_layers = 0: no layer is offloaded
# any more, so MCore's offload/graph conflict no longer applies and you can switch
# cuda_graph_impl to "transformer_engine" with cuda_graph_modules=["attn"].
