# megatron-core 0.16.1 + Megatron Bridge: TE-scoped CUDA graphs on attention + MLP (dense GPT).
# Drop this after the recipe call, before pretrain(cfg, ...).

cfg = my_dense_gpt_recipe()  # your existing recipe function

graph_overrides = {
    "model.cuda_graph_impl": "transformer_engine",   # TE make_graphed_callables, per layer
    "model.cuda_graph_modules": ["attn", "mlp"],     # attention + dense MLP of every layer
    "model.cuda_graph_warmup_steps": 3,              # eager warmup steps before capture
    "model.use_te_rng_tracker": True,                # graph-safe RNG, required by Bridge
    "rng.te_rng_tracker": True,
}

for dotted, value in graph_overrides.items():
    section, key = dotted.split(".", 1)
    setattr(getattr(cfg, section), key, value)

# Notes
# - Keep seq_length and micro_batch_size constant; graphs replay fixed shapes.
# - Do not use cuda_graph_impl="full_iteration" on this image: that value is 0.18+ only.
# - Check the log for "Start CUDA Graphs capture..." and compare steady-state iteration
#   time against an eager run, not the capture step.
