# recipe_patch.py -- activation offload + CUDA graphs on a Bridge recipe
#
# TE-scoped graphs and activation CPU offloading don't mix: TransformerConfig
# raises "CUDA graphs not supported with CPU offloading." when the TE helper is
# selected, because TE's make_graphed_callables pre-allocates static activation
# buffers on device that the offload hooks would try to move to host.
#
# The MCore-native ("local") per-layer graphs go through CudaGraphManager instead
# of TE's helper, so they are the path to use when you want to keep offloading.

from megatron.bridge.recipes.llama import llama3_8b_pretrain_config


def build():
    cfg = llama3_8b_pretrain_config()

    # activation offloading (keep: we need the memory)
    cfg.model.cpu_offloading = True
    cfg.model.cpu_offloading_num_layers = 4
    cfg.model.cpu_offloading_activations = True
    cfg.model.cpu_offloading_weights = False

    # CUDA graphs: local per-layer capture of attention instead of TE-scoped
    cfg.model.cuda_graph_impl = "local"
    cfg.model.cuda_graph_scope = None
    cfg.model.cuda_graph_modules = ["attn"]
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg
