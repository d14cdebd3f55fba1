"""GPU-side engines: each one a thin adapter to a real training entry point.

An engine module runs inside the torchrun subprocess (the only place that imports torch,
megatron and Transformer Engine at module level). It hands the user-facing flags or overrides
to the framework's own entry point unchanged, lets the framework print its own log, and writes
a small sidecar JSON with what it can observe without changing the framework's code path
(CUDA-graph capture/replay counts, CUDA-event step times, peak memory, versions).

* ``megatron_lm``: Megatron-LM's ``megatron.training.pretrain()``; CLI side (flags from the
  canonical config, log -> results) :mod:`skill_tools.harness.real_loop`.
* ``bridge``: Megatron Bridge's ``megatron.bridge.training.pretrain.pretrain()`` with Hydra
  overrides through Bridge's own override path; CLI side :mod:`skill_tools.harness.bridge_loop`.
"""
