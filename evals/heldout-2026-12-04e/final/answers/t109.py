"""Post-process hook for our Bridge GPT recipe: TE-scoped CUDA graphs on attention + MLP.

Cluster image: megatron-core 0.16.1 + Megatron Bridge. Call this on the ConfigContainer the
recipe returns, before handing it to pretrain().
"""

from megatron.bridge.training.config import ConfigContainer


def enable_te_cuda_graphs(cfg: ConfigContainer) -> ConfigContainer:
    # Per-layer capture through Transformer Engine's make_graphed_callables.
    cfg.model.cuda_graph_impl = "transformer_engine"

    # Graph the attention block and the dense MLP of every layer.
    # The stock recipe leaves cuda_graph_scope at "full"; clear it so it does not
    # collide with the explicit module list.
    cfg.model.cuda_graph_scope = None
    cfg.model.cuda_graph_modules = ["attn", "mlp"]

    # Three eager steps before capture so lazy init (cuBLAS handles, NCCL comms)
    # is not recorded into the graphs.
    cfg.model.cuda_graph_warmup_steps = 3

    # Bridge asserts TE's RNG tracker for any cuda_graph_impl other than "none".
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # Shapes must be static: fixed seq_length / micro_batch_size, no unpadded packing.
    # NaN checks can stay on; only full-iteration graphs need them off.
    return cfg
