"""The GPU harness: eager-vs-graph measurements through an engine, one isolated process per run.

* :mod:`.bench` — what ``skill-tools bench`` (training) runs: a request becomes a checked plan;
* :mod:`.engines` — the engines by name (``megatron-lm``, ``bridge``, ``proxy``), each a CLI half
  and a GPU half behind :class:`~.engines.base.Engine`;
* :mod:`.inference` — ``bench --mode inference``: decode graphs in megatron-core's inference engine;
* shared: :mod:`.spec` (what one run is), :mod:`.runner` (interleaved trials), :mod:`.isolation`
  (one process, its log, its failure class), :mod:`.results` / :mod:`.report` (the results document,
  its table and plot), :mod:`.records` (typed records from the GPU side), :mod:`.rebuild`,
  :mod:`.precheck`.

Only the GPU halves (``engines/*/gpu.py``, ``engines/observe.py``, ``engines/proxy/{model,setup}.py``,
``inference/{worker,attention,engine_setup}.py``, ``graph_counter``, ``gpu_profile``) import torch,
megatron or Transformer Engine at module level; they run in the subprocess.
"""
