# Python recipe edits (parsed with ast, never executed): local impl with a per-layer scope,
# which Megatron Bridge rejects (use transformer_engine for scoped capture).
from megatron.core.transformer.enums import CudaGraphScope


def tweak(cfg):
    cfg.model.cuda_graph_impl = "local"
    cfg.model.cuda_graph_scope = [CudaGraphScope.mlp]
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
