#!/usr/bin/env bash
# Why it fails on megatron-core 0.17:
#   * cuda_graph_modules does not exist before 0.18 (0.16/0.17 use cuda_graph_scope)
#   * cuda_graph_impl="full_iteration" is also 0.18+; 0.17 only accepts
#     none | local | transformer_engine.
# The 0.17 way to get a whole-iteration graph is impl=local + scope=[full_iteration].
#
# Check what the image actually has before patching:
python - <<'PY'
import megatron.core, inspect
from megatron.core.transformer.transformer_config import TransformerConfig
print("mcore", megatron.core.__version__)
print("has cuda_graph_modules:", "cuda_graph_modules" in TransformerConfig.__dataclass_fields__)
PY

# 0.17 overrides for the Bridge recipe (run_recipe-style key=value overrides):
OVERRIDES=(
  model.cuda_graph_impl=local
  "model.cuda_graph_scope=[full_iteration]"
  model.cuda_graph_warmup_steps=3
  model.use_te_rng_tracker=true
  rng.te_rng_tracker=true
  # still mandatory: no host syncs inside the captured iteration
  rerun_state_machine.check_for_nan_in_loss=false
  ddp.check_for_nan_in_grad=false
)
echo "${OVERRIDES[@]}"
# Drop cuda_graph_modules entirely on 0.17. When you move to 0.18+, switch to
# cuda_graph_impl=full_iteration with cuda_graph_modules=[].
