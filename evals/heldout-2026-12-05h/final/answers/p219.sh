#!/usr/bin/env bash
# fix_full_iteration_nan_check.sh
#
# Log: "check_for_nan_in_loss must be disabled when using full_iteration CUDA graph.
#       Set rerun_state_machine.check_for_nan_in_loss=False."
#
# Cause: a full-iteration graph captures the whole forward/backward/optimizer step.
# The NaN checks copy the loss / grad norm to the host and branch on it: a CPU-GPU
# sync that cannot live inside a captured graph. So both checks must be off; the
# graph config itself is fine and stays as the 0.16 spelling:
#   cuda_graph_impl=local, cuda_graph_scope=[full_iteration]
# (cuda_graph_impl=full_iteration does not exist on megatron-core 0.16.)
#
# Usage: ./fix_full_iteration_nan_check.sh <bridge-config.yaml | overrides-file>
set -euo pipefail
CFG="${1:?config file}"

# --- Megatron Bridge YAML / Hydra overrides: turn BOTH checks off ---------------
cat >> "$CFG" <<'YAML'

# full_iteration CUDA graph (megatron-core 0.16): no host syncs allowed in the step
rerun_state_machine:
  check_for_nan_in_loss: false
ddp:
  check_for_nan_in_grad: false
YAML
# If your file already has rerun_state_machine:/ddp: sections, merge the keys there
# instead of appending (duplicate top-level keys are invalid YAML).

# Same thing as CLI overrides for a Bridge run:
#   rerun_state_machine.check_for_nan_in_loss=false ddp.check_for_nan_in_grad=false \
#   model.cuda_graph_impl=local 'model.cuda_graph_scope=[full_iteration]'

# --- Megatron-LM pretrain_gpt.py equivalent ----------------------------------------
#   --cuda-graph-impl local --cuda-graph-scope full_iteration \
#   --no-check-for-nan-in-loss-and-grad --te-rng-tracker
# (validate_args on 0.16 asserts "--no-check-for-nan-in-loss-and-grad should be set
#  with full_iteration CUDA graph" otherwise.)

grep -nE 'check_for_nan_in_(loss|grad)|cuda_graph_(impl|scope)' "$CFG"
echo "OK: both NaN checks off; keep cuda_graph_impl=local + cuda_graph_scope=[full_iteration] on 0.16."
echo "Tip: 'skill-tools logs <LOG>' recognises this assert signature."
