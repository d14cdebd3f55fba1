"""Recipe override: activation CPU offload + TE attention CUDA graphs.

Q: "cpu_offloading=True, cpu_offloading_num_layers=4, plus TE CUDA graphs on attn — OK?"

Short version:
  * megatron-core 0.16/0.17: TransformerConfig raises
    "CUDA graphs not supported with CPU offloading." for any cuda_graph_impl,
    so there you must choose: drop offloading (selective recompute / optimizer
    CPU offload) or drop graphs.
  * megatron-core 0.18+: the check was relaxed when full_iteration became its own
    impl; the offload hooks now run outside the captured per-layer region, so
    activation offloading and transformer_engine graphs can be combined. The
    version guard below picks the right path.
"""

from importlib.metadata import version
from packaging.version import Version


def apply_overrides(cfg):
    mcore = Version(version("megatron-core"))

    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    if mcore >= Version("0.18.0"):
        # New API + relaxed offload check: keep both features.
        cfg.model.cuda_graph_scope = None
        cfg.model.cuda_graph_modules = ["attn"]
        cfg.model.cpu_offloading = True
        cfg.model.cpu_offloading_num_layers = 4
        cfg.model.cpu_offloading_activations = True
        cfg.model.cpu_offloading_weights = False
    else:
        # 0.16/0.17: incompatible, keep the graphs and recover memory elsewhere.
        cfg.model.cuda_graph_scope = ["attn"]
        cfg.model.cpu_offloading = False
        cfg.model.cpu_offloading_num_layers = 0
        cfg.model.recompute_granularity = "selective"
        cfg.model.recompute_modules = ["core_attn"]

    return cfg
