#!/bin/bash
# edit_for_full_iteration_graph.sh
# Patches train_gpt3_175b_distributed.sh in place so the whole fwd+bwd iteration
# is captured as one CUDA graph (megatron-core 0.19 naming).
#
#  - --cuda-graph-impl full_iteration : 0.18+ spelling (the old --cuda-graph-scope
#    full_iteration is deprecated and only migrated for you)
#  - --cuda-graph-warmup-steps 3      : a few eager steps before capture
#  - --no-check-for-nan-in-loss-and-grad : the NaN check syncs CPU<->GPU and can't
#    be captured; 0.19 asserts on it with full_iteration. (With --fp16 and no
#    --loss-scale it's already off, but set it so --bf16 later doesn't break.)
#  - --cuda-graph-modules attn mlp    : tells the full-iteration capture which
#    layer submodules to include so MoE/router bits stay eager
#  - TE RNG tracker is turned on by Megatron-LM automatically for CUDA graphs.
set -euo pipefail
F=${1:-train_gpt3_175b_distributed.sh}

python3 - "$F" <<'PY'
import sys, re
p = sys.argv[1]
s = open(p).read()
block = '''CUDA_GRAPH_ARGS=(
    --cuda-graph-impl full_iteration
    --cuda-graph-modules attn mlp
    --cuda-graph-warmup-steps 3
    --no-check-for-nan-in-loss-and-grad
)
'''
s = s.replace("torchrun ${DISTRIBUTED_ARGS[@]}", block + "torchrun ${DISTRIBUTED_ARGS[@]}", 1)
s = s.replace("${EVAL_AND_LOGGING_ARGS[@]}", "${EVAL_AND_LOGGING_ARGS[@]} \\\n    ${CUDA_GRAPH_ARGS[@]}", 1)
open(p, "w").write(s)
PY
echo "patched $F"

# Resulting launch section:
: <<'DOC'
```bash
CUDA_GRAPH_ARGS=(
    --cuda-graph-impl full_iteration
    --cuda-graph-modules attn mlp
    --cuda-graph-warmup-steps 3
    --no-check-for-nan-in-loss-and-grad
)
torchrun ${DISTRIBUTED_ARGS[@]} pretrain_gpt.py \
    ${GPT_MODEL_ARGS[@]} ${TRAINING_ARGS[@]} ${MODEL_PARALLEL_ARGS[@]} \
    ${DATA_ARGS[@]} ${EVAL_AND_LOGGING_ARGS[@]} \
    ${CUDA_GRAPH_ARGS[@]}
```
DOC
