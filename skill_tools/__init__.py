"""skill_tools: validate, apply, recommend, benchmark and diagnose CUDA graphs in Megatron.

The Python API mirrors the CLI for agents calling helpers in-process; heavy imports
(torch, megatron-core) happen only inside the functions that need them.
"""

__version__ = "0.1.0"
