# cuda_graphs_016.py: apply to the recipe ConfigContainer before pretrain()
# Target: megatron-core 0.16.1 + Megatron Bridge, dense GPT

def enable_te_cuda_graphs(cfg):
    """TE-scoped CUDA graphs on attention + MLP for a dense GPT model."""
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_modules = ["attn", "mlp"]   # per-layer capture coverage
    cfg.model.cuda_graph_warmup_steps = 3

    # CUDA-graph-safe RNG (required when graphs are on)
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg

# Keep seq_length and micro_batch_size fixed for the whole run; the graphs are
# captured per shape. Don't use cuda_graph_impl="local" for these scopes in Bridge.
