# Overrides for megatron-core 0.19 / Bridge, merged onto the recipe with OmegaConf.
# Profile eager first; only keep this if the eager timeline shows host launch gaps.
from omegaconf import OmegaConf

overrides = [
    "model.cuda_graph_impl=transformer_engine",
    "model.cuda_graph_modules=[attn]",      # 0.18+ key; widen to [attn,mlp] after an A/B
    "model.cuda_graph_warmup_steps=3",
    "model.seq_length=8192",                # keep static
    "train.micro_batch_size=1",             # keep static
]
cfg_dict = OmegaConf.merge(OmegaConf.structured(base_cfg_dict), OmegaConf.from_dotlist(overrides))
# Compare post-capture iterations with eager (skip the capture step).
