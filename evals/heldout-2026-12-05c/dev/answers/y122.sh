#!/usr/bin/env bash
# Run:ai submission for the Llama SFT job: activation offloading + CUDA graphs.
#
# Context: Bridge 0.3.x image (megatron-core 0.16). Per-layer TE graphs (attn) refuse
# cpu_offloading at config time ("CUDA graphs not supported with CPU offloading."),
# because offloading moves activations host<->device with syncs and changing addresses.
# The full-iteration graph is the one capture mode that coexists with activation
# offloading, so we switch from TE-scoped attn graphs to full iteration and keep
# cpu_offloading=True / cpu_offloading_num_layers=4 for the memory.
#
# Full iteration captures forward+backward as one graph, so the NaN checks (host syncs)
# must be off, and the TE RNG tracker is required for any graph in Bridge.

set -euo pipefail

JOB=${JOB:-llama-sft-cg-offload}
IMAGE=${IMAGE:-registry.internal/ml/nemo-bridge:0.3.1}

OVERRIDES=(
  model.cpu_offloading=true
  model.cpu_offloading_num_layers=4

  model.cuda_graph_impl=local
  "model.cuda_graph_scope=[full_iteration]"
  model.cuda_graph_warmup_steps=3
  model.use_te_rng_tracker=true
  rng.te_rng_tracker=true

  rerun_state_machine.check_for_nan_in_loss=false
  ddp.check_for_nan_in_grad=false
)

runai submit "${JOB}" \
  --image "${IMAGE}" \
  --gpu 8 \
  --large-shm \
  --command -- \
  torchrun --nproc-per-node 8 scripts/training/run_recipe.py \
    --recipe llama3_8b_sft_config \
    "${OVERRIDES[@]}"

# Check after the warmup steps: "Capture CUDA graph for training!!!" followed by
# "CUDA graph capture done for training!!!", then compare steady-state step time
# against the eager baseline (same seed) before keeping it.
