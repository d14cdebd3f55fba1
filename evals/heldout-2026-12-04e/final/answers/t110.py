# Why the copied 0.19 lines fail on megatron-core 0.17, and the 0.17 spelling.
#
#   cfg.model.cuda_graph_impl = "full_iteration"   # 0.18+ value
#   cfg.model.cuda_graph_modules = []              # 0.18+ key
#
# Both arrived in megatron-core 0.18, when the CUDA-graph API was split up:
#   * 0.16-0.17 TransformerConfig declares
#       cuda_graph_impl: Literal['none', 'local', 'transformer_engine']
#     and __post_init__ asserts "Invalid cuda graph implementation: full_iteration".
#   * There is no cuda_graph_modules field before 0.18. The list key is cuda_graph_scope.
#     Through YAML/Hydra/CLI an unknown key is rejected (Megatron-LM: "unrecognized
#     arguments"). Set as a Python attribute it is silently ignored.
#   * Full iteration in 0.16-0.17 is the local impl with the special scope "full_iteration".
#
# Full iteration also needs the NaN checks off on every version: the check is a host sync
# that can't run inside the captured iteration. Bridge asserts "check_for_nan_in_loss must be
# disabled when using full_iteration CUDA graph." (Megatron-LM: --no-check-for-nan-in-loss-and-grad).
#
# Drop-in helper that writes the right spelling for whatever image it runs in:

from packaging.version import Version

import megatron.core


def enable_full_iteration_graph(cfg) -> None:
    mcore = Version(megatron.core.__version__)

    if mcore < Version("0.18"):
        # 0.16 / 0.17 spelling (your production image)
        cfg.model.cuda_graph_impl = "local"
        cfg.model.cuda_graph_scope = ["full_iteration"]
    else:
        # 0.18+ spelling (what the 0.19 example used)
        cfg.model.cuda_graph_impl = "full_iteration"
        cfg.model.cuda_graph_scope = None   # stock recipes set "full"; can't coexist with modules
        cfg.model.cuda_graph_modules = []   # must be empty with full_iteration

    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False


# If you'd rather hard-code it for the 0.17 image, these are the lines:
#
#   cfg.model.cuda_graph_impl = "local"
#   cfg.model.cuda_graph_scope = ["full_iteration"]
#   cfg.model.cuda_graph_warmup_steps = 3
#   cfg.model.use_te_rng_tracker = True
#   cfg.rng.te_rng_tracker = True
#   cfg.rerun_state_machine.check_for_nan_in_loss = False
#   cfg.ddp.check_for_nan_in_grad = False
#
# Megatron-LM launch on 0.17:
#   --cuda-graph-impl local --cuda-graph-scope full_iteration --no-check-for-nan-in-loss-and-grad
#
# Newer Bridge releases also ship megatron.bridge.utils.cuda_graph.set_full_iteration_cuda_graph,
# which does the same version switch. Use it instead if your Bridge has it.
# Confirm capture in the log: "Capture CUDA graph for training!!!" then
# "CUDA graph capture done for training!!!".
