# llama31_8b_graphs.py -- megatron-core 0.19, Megatron Bridge
# Profile the eager recipe first (nsys): only enable graphs if you see launch gaps between kernels.
import dataclasses

from megatron.bridge.recipes.llama import llama31_8b_pretrain_config
from megatron.bridge.training.gpt_step import forward_step
from megatron.bridge.training.pretrain import pretrain

cfg = llama31_8b_pretrain_config()

# Transformer Engine per-layer graphs, attention only to start with.
# (widen to ["attn", "mlp"] only after an A/B shows it helps)
cfg.model = dataclasses.replace(
    cfg.model,
    cuda_graph_impl="transformer_engine",
    cuda_graph_modules=["attn"],
    cuda_graph_warmup_steps=3,
    use_te_rng_tracker=True,
    seq_length=8192,          # static: never change between iterations
)
cfg.rng = dataclasses.replace(cfg.rng, te_rng_tracker=True)
cfg.train.micro_batch_size = 1  # static as well

# When timing: compare steady-state replay iterations against eager, not the capture step.
pretrain(cfg, forward_step)
