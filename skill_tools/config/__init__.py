"""Config model, era API, readers and renderers (no torch/megatron imports here)."""
