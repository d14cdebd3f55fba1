#!/usr/bin/env bash
# submit_full_iter.sh: Bridge pretraining with ONE CUDA graph for the whole forward+backward
# (megatron-core 0.19, so the 0.18+ spelling: cuda_graph_impl=full_iteration, empty module list).
#
# Why each line is there:
#   cuda_graph_impl=full_iteration   one graph per training iteration (optimizer step stays eager)
#   cuda_graph_scope=null            the stock recipe sets "full"; on 0.18+ it must be cleared
#   cuda_graph_modules=[]            full_iteration asserts if this is non-empty:
#                                    'cuda_graph_modules must be empty when cuda_graph_impl="full_iteration".'
#   check_for_nan_in_loss=false      both NaN checks sync with the host (.item()), and a host sync
#   check_for_nan_in_grad=false      cannot sit inside the captured iteration. Bridge asserts on the
#                                    loss check; the grad check runs inside forward_backward too.
#   te_rng_tracker (both keys)       graph-safe RNG, required by Bridge for any graph
#   cuda_graph_warmup_steps=3        eager warmup before capture
# Not set on purpose: optimizer.overlap_param_gather_with_optimizer_step stays at its default (off).
# Don't combine it with a full-iteration graph.
# Shapes must stay static: fixed seq length and micro-batch size, no unpadded packing.
set -euo pipefail

RECIPE="${RECIPE:-llama31_8b_pretrain_2gpu_h100_bf16_config}"
NPROC="${NPROC:-8}"

ray job submit \
  --address "${RAY_ADDRESS:?set RAY_ADDRESS}" \
  --working-dir . \
  --runtime-env-json '{"env_vars": {"PYTHONUNBUFFERED": "1"}}' \
  -- torchrun --nproc-per-node "${NPROC}" scripts/training/run_recipe.py \
       --recipe "${RECIPE}" --mode pretrain \
       model.cuda_graph_impl=full_iteration \
       model.cuda_graph_scope=null \
       "model.cuda_graph_modules=[]" \
       model.cuda_graph_warmup_steps=3 \
       model.use_te_rng_tracker=true \
       rng.te_rng_tracker=true \
       rerun_state_machine.check_for_nan_in_loss=false \
       ddp.check_for_nan_in_grad=false

# Verify in the job log:  "Capture CUDA graph for training!!!"  then  "CUDA graph capture done for training!!!"
# Judge the speedup on steady-state iterations after that, against an eager job with the same seed,
# not on the capture iteration. Loss should match eager to bf16 noise.
