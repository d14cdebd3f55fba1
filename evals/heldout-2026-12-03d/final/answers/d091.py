# Bring-up of TE-scoped CUDA graphs for Llama 3.1 8B on megatron-core 0.19 (Megatron Bridge).
# Profile eager first (nsys): only continue if the timeline shows host/launch gaps.
# Keep seq_length=8192 and micro_batch_size=1 fixed -- graphs replay one static shape.
# Judge the result on replay iterations after capture, never on the capture step.
from omegaconf import OmegaConf

from megatron.bridge.recipes.llama import llama31_8b_pretrain_config
from megatron.bridge.training.utils.omegaconf_utils import apply_overrides, create_omegaconf_dict_config

cfg = llama31_8b_pretrain_config()
base, excluded_fields = create_omegaconf_dict_config(cfg)

graph_overrides = OmegaConf.create({
    "model": {
        "cuda_graph_impl": "transformer_engine",
        "cuda_graph_modules": ["attn"],        # 0.18+ key; widen to ["attn", "mlp"] after an A/B
        "cuda_graph_scope": None,
        "cuda_graph_warmup_steps": 3,
        "use_te_rng_tracker": True,
    },
    "rng": {"te_rng_tracker": True},
})
merged = OmegaConf.merge(base, graph_overrides)
apply_overrides(cfg, OmegaConf.to_container(merged, resolve=True), excluded_fields)
