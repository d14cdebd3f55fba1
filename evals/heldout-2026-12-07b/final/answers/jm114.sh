#!/usr/bin/env bash
# Whole-iteration CUDA graph on megatron-core 0.16.1 + Megatron Bridge.
#
# 0.16/0.17 spelling: cuda_graph_impl=local + cuda_graph_scope=[full_iteration].
# (cuda_graph_impl=full_iteration and cuda_graph_modules only exist from 0.18 on; with the
#  transformer_engine impl, MCore 0.16 refuses full_iteration and tells you to use local.)
set -euo pipefail

python - <<'PY'
import megatron.core as m
v = tuple(int(x) for x in m.__version__.split(".")[:2])
assert v < (0, 18), f"megatron-core {m.__version__}: use cuda_graph_impl=full_iteration instead"
print("megatron-core", m.__version__, "-> legacy spelling")
PY

OVERRIDES=(
  model.cuda_graph_impl=local
  "model.cuda_graph_scope=[full_iteration]"   # full_iteration alone, nothing else in the list
  model.cuda_graph_warmup_steps=3             # 3 eager steps, 4th step captures
  model.use_te_rng_tracker=true               # graph-safe RNG (Bridge asserts it for any graph)
  rng.te_rng_tracker=true
  rerun_state_machine.check_for_nan_in_loss=false   # host sync; Bridge asserts it off for full_iteration
  ddp.check_for_nan_in_grad=false                   # same reason, grad-side check
)

torchrun --nproc_per_node=8 scripts/training/run_recipe.py \
  --recipe llama3_8b_pretrain_config \
  "${OVERRIDES[@]}" 2>&1 | tee full_iter_016.log

grep -E "Capture CUDA graph for training|CUDA graph capture done for training" full_iter_016.log

# Same thing in Python, if you build the ConfigContainer yourself:
#   cfg.model.cuda_graph_impl = "local"
#   cfg.model.cuda_graph_scope = ["full_iteration"]
#   cfg.model.cuda_graph_warmup_steps = 3
#   cfg.model.use_te_rng_tracker = True
#   cfg.rng.te_rng_tracker = True
#   cfg.rerun_state_machine.check_for_nan_in_loss = False
#   cfg.ddp.check_for_nan_in_grad = False
#
# Requirements: static seq_length / micro-batch size, dense model (dropless MoE dispatch syncs with
# the host and can't be captured), memory headroom. Compare iterations after the capture step
# against an eager run with the same seed.
