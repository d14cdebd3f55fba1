# cuda_graphs.bzl -- Llama 3.1 8B, Megatron Bridge on megatron-core 0.19, 8xH100, TP=1 PP=1,
# seq 8192, MBS 1.
#
# Order of operations (do not skip step 1):
#   1. Profile the eager run first (nsys, or just the per-step timers). Graphs only pay off if
#      you can see host/launch gaps: GPU idle between kernels while the CPU enqueues them.
#      At seq 8192 / MBS 1 an 8B dense step is mostly GEMM + attention, so the gain may be small.
#   2. Start narrow: Transformer Engine per-layer graphs on attention only ("attn").
#   3. A/B against eager; only if it helps, widen to ["attn", "mlp"] and A/B again.
#   4. Compare replay iterations after capture (e.g. steps 10-30) with the same steps of the
#      eager run. The capture step (first step after the warmup steps) includes capture time:
#      never time that one.
#
# Constraints: sequence length and micro-batch size must stay static (fixed seq_length=8192,
# MBS=1; no variable-length batches, no unpadded packing). Graph-safe RNG is mandatory.

# 0.18+ spelling: cuda_graph_modules. (0.16/0.17 would be cuda_graph_scope=["attn"] instead.)
CUDA_GRAPH_TE_ATTN = {
    "model.cuda_graph_impl": "transformer_engine",
    # The stock Llama-3 recipes set cuda_graph_scope="full"; on 0.18+ setting it together with
    # cuda_graph_modules asserts, so clear it.
    "model.cuda_graph_scope": "null",
    "model.cuda_graph_modules": "[attn]",          # step 3: "[attn,mlp]" after a positive A/B
    "model.cuda_graph_warmup_steps": "3",
    "model.use_te_rng_tracker": "true",            # graph-safe (TE) RNG tracker, required
    "rng.te_rng_tracker": "true",
}

def bridge_overrides(overrides = CUDA_GRAPH_TE_ATTN):
    """Hydra-style `key=value` list for the Bridge entry script."""
    return ["%s=%s" % (k, v) for k, v in sorted(overrides.items())]

def llama31_8b_graph_run(name, script = "pretrain_llama31_8b.py", **kwargs):
    """Launch target: torchrun --nproc-per-node 8 <script> <overrides>."""
    native.sh_binary(
        name = name,
        srcs = ["torchrun_wrapper.sh"],
        args = ["--nproc-per-node", "8", script] + bridge_overrides(),
        **kwargs
    )

# Equivalent Python inside your Bridge script (recipe llama31_8b_pretrain_config):
#   cfg.model.cuda_graph_impl = "transformer_engine"
#   cfg.model.cuda_graph_scope = None
#   cfg.model.cuda_graph_modules = ["attn"]
#   cfg.model.cuda_graph_warmup_steps = 3
#   cfg.model.use_te_rng_tracker = True
#   cfg.rng.te_rng_tracker = True
#
# What to look for in the log: "Start CUDA Graphs capture...", then "Time spent in CUDA Graphs
# capture on rank 0: ...". If it says "No graphable layers found", nothing was graphed.
# Do not start with full_iteration here: it is the bigger hammer (needs NaN checks off) and
# scoped TE graphs are the safer first rollout.
