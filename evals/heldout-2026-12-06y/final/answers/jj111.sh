#!/usr/bin/env bash
# One CUDA graph for the whole training iteration on megatron-core 0.16.1 + Megatron Bridge.
#
# 0.16/0.17 spelling: cuda_graph_impl="local" + cuda_graph_scope=["full_iteration"].
# cuda_graph_impl="full_iteration" and cuda_graph_modules don't exist before 0.18, and
# "transformer_engine" refuses the full_iteration scope.
set -euo pipefail

python - <<'PY'
import megatron.core as m
v = m.__version__
assert v.startswith(("0.16", "0.17")), f"this override is the 0.16/0.17 spelling, found {v}"
PY

cat > full_iteration_graph.yaml <<'EOF_YAML'
model:
  cuda_graph_impl: local
  cuda_graph_scope: [full_iteration]   # list it alone, nothing else in the list
  cuda_graph_warmup_steps: 3           # eager steps before the capture
  use_te_rng_tracker: true             # graph-safe RNG, required
rng:
  te_rng_tracker: true
rerun_state_machine:
  check_for_nan_in_loss: false         # host sync; Bridge asserts this is off with full_iteration
ddp:
  check_for_nan_in_grad: false         # same problem on the gradient side
optimizer:
  overlap_param_gather_with_optimizer_step: false
EOF_YAML

# Your Bridge entry point that loads a recipe and merges a YAML override on top:
torchrun --nproc-per-node 8 pretrain_with_yaml.py --config-file full_iteration_graph.yaml \
  2>&1 | tee full_iter.log

# Expect "Capture CUDA graph for training!!!" then "CUDA graph capture done for training!!!".
# Shapes must be static (fixed seq_length and micro_batch_size, padded if packed). Don't use
# this on a dropless MoE model: the dispatcher's host sync on token counts breaks capture.
# Time only the steps after the capture step, and check peak memory, since the graph pool
# stays allocated.
