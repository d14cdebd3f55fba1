"""GPU truth path: eager-vs-graph measurements on megatron-core proxies.

Only :mod:`skill_tools.harness.engines.proxy.worker` (and the modules it alone imports: ``proxy``,
``training_setup``) import torch, megatron-core or Transformer Engine at module level; it
runs in a subprocess. Everything else here is cheap to import on a machine without a GPU.
"""
