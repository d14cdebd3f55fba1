# MCore dynamic inference engine (megatron-core 0.19): decode CUDA graphs via TE.
# TE's make_graphed_callables gives the lowest launch overhead per layer, so use it for
# decode too, with one graph per layer and batch bucket.
inference_config = dict(
    cuda_graph_impl="transformer_engine",
    inference_cuda_graph_scope="layer",
    use_te_rng_tracker=True,
)
model_config = model_config.__class__(**{**vars(model_config), **inference_config})
# capture/replay happen inside the engine under torch.inference_mode()
