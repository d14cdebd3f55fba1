"""Back-port of the 0.19 full-iteration CUDA-graph example to megatron-core 0.17.

Why the copied lines fail on 0.17
=================================

+--------------------------------------+----------------------------+----------------------------------+
| line from the 0.19 example           | 0.17 behaviour             | 0.17 spelling                    |
+======================================+============================+==================================+
| cuda_graph_impl = "full_iteration"   | not an allowed value:      | cuda_graph_impl = "local"        |
|                                      | Literal none/local/        |                                  |
|                                      | transformer_engine ->      |                                  |
|                                      | "Invalid cuda graph        |                                  |
|                                      | implementation"            |                                  |
+--------------------------------------+----------------------------+----------------------------------+
| cuda_graph_modules = []              | no such field before 0.18  | cuda_graph_scope =               |
|                                      | (renamed from scope there) | ["full_iteration"]               |
+--------------------------------------+----------------------------+----------------------------------+

Both the "full_iteration" impl value and the cuda_graph_modules key were introduced in 0.18.
On 0.16/0.17 the same graph is the MCore local implementation with the scope entry
"full_iteration".

NaN checks: on 0.19's full_iteration impl the loss check has to be off. On 0.17 the
local FullCudaGraphWrapper runs the loss NaN check on the returned loss after the graph
replay, outside the captured region, so it can stay on there (useful for catching
divergence); only the gradient NaN check, which runs inside the DDP grad path of the
captured backward, has to be off.
"""


def apply_full_iteration_0_17(cfg):
    m = cfg.model
    m.cuda_graph_impl = "local"
    m.cuda_graph_scope = ["full_iteration"]       # alone in the list
    if hasattr(m, "cuda_graph_modules"):          # in case a 0.19-style field slipped in via a shared base config
        delattr(m, "cuda_graph_modules")
    m.cuda_graph_warmup_steps = 3
    m.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    cfg.rerun_state_machine.check_for_nan_in_loss = True   # fine on 0.17 (checked outside the graph)
    cfg.ddp.check_for_nan_in_grad = False                  # inside the captured backward: must be off
    return cfg


# Keep seq_length / micro-batch size fixed. In the log look for
# "Capture CUDA graph for training!!!" and "CUDA graph capture done for training!!!".
