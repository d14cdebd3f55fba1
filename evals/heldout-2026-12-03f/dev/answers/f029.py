#!/usr/bin/env python
# launch_fullgraph.py - megatron-core 0.19: one CUDA graph for forward+backward.
# (Bridge equivalent: cfg.model.cuda_graph_impl="full_iteration", cfg.model.cuda_graph_modules=[],
#  cfg.rerun_state_machine.check_for_nan_in_loss=False, cfg.ddp.check_for_nan_in_grad=False)
import os, sys

graph_args = [
    "--cuda-graph-impl", "full_iteration",      # no --cuda-graph-modules: must stay empty
    "--cuda-graph-warmup-steps", "3",
    "--no-check-for-nan-in-loss-and-grad",      # NaN check = CPU-GPU sync, cannot be captured
    "--te-rng-tracker",
]
argv = ["torchrun", "--nproc-per-node", "8", "pretrain_gpt.py", *sys.argv[1:], *graph_args]
# shapes must stay static: fixed --seq-length and --micro-batch-size
# do not enable overlap_param_gather_with_optimizer_step with full-iteration graphs
os.execvp(argv[0], argv)
