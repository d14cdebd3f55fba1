#!/usr/bin/env bash
# One CUDA graph for the whole training iteration (forward+backward; optimizer stays eager)
# with Megatron Bridge on megatron-core 0.16.1, launched from our Podman image.
#
# What matters:
#   * full-iteration capture lives in MCore's own graph code, not in TE, so don't use
#     transformer_engine for this;
#   * no per-layer module list with full iteration: the graph is the whole step;
#   * host syncs inside the captured step are illegal -> both NaN checks off
#     (Bridge asserts "check_for_nan_in_loss must be disabled when using full_iteration CUDA graph.");
#   * TE RNG tracker on; seq length and micro-batch size fixed; 3 eager warmup steps.
set -euo pipefail

IMAGE="${IMAGE:-localhost/megatron-bridge:mcore-0.16.1}"

podman run --rm --device nvidia.com/gpu=all --ipc=host --ulimit memlock=-1 \
  -v "$PWD":/workspace -w /workspace "$IMAGE" \
  torchrun --nproc-per-node 8 pretrain_bridge.py \
    model.cuda_graph_impl=full_iteration \
    model.cuda_graph_warmup_steps=3 \
    model.use_te_rng_tracker=true \
    rng.te_rng_tracker=true \
    rerun_state_machine.check_for_nan_in_loss=false \
    ddp.check_for_nan_in_grad=false \
  2>&1 | tee full_iteration.log

# Evidence of capture:
grep -E "Capture CUDA graph for training!!!|CUDA graph capture done for training!!!" full_iteration.log
# Then compare steady-state iterations after capture with an eager run (same seed); ignore the
# capture step.
