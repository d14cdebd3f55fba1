#!/usr/bin/env bash
# decode_block_graphs_017.sh: whole-block decode CUDA graphs on megatron-core 0.17
#
# On 0.17 there is no `inference_cuda_graph_scope` (that key/flag arrives in 0.18). Whole-block
# inference capture is spelled with the old scope list:
#     cuda_graph_impl="local" + cuda_graph_scope=["full_iteration_inference"]
# (CudaGraphScope.full_iteration_inference, new in 0.17; the TransformerBlock then owns one graph
# per batch bucket). Don't write "full_iteration" here: on 0.17 that is the *training* full-iteration
# scope and the dynamic engine warns it "will not create inference CUDA graphs".
# 0.16 has no block-level inference capture at all (local impl = per-layer graphs only).
# 0.18+: same intent is cuda_graph_impl="local" + inference_cuda_graph_scope="block".
set -euo pipefail

# 1) Probe: are we really on 0.17 and does the enum value exist?
python - <<'PY'
import megatron.core as mc
from megatron.core.transformer.enums import CudaGraphScope
v = mc.__version__
print("megatron-core", v)
assert v.startswith("0.17"), f"this launcher is for 0.17, found {v}"
assert hasattr(CudaGraphScope, "full_iteration_inference"), "no full_iteration_inference scope"
from megatron.core.transformer.transformer_config import TransformerConfig
assert "inference_cuda_graph_scope" not in TransformerConfig.__dataclass_fields__, \
    "inference_cuda_graph_scope exists -> you are on 0.18+, use --inference-cuda-graph-scope block"
print("ok: use --cuda-graph-scope full_iteration_inference")
PY

# 2) Launch. Python API equivalent:
#    TransformerConfig(..., cuda_graph_impl="local", cuda_graph_scope=["full_iteration_inference"],
#                      use_te_rng_tracker=True)
#    + DynamicInferenceContext(..., num_cuda_graphs=16, use_cuda_graphs_for_non_decode_steps=False)
#    (num_cuda_graphs=None in Python means no graphs)
python examples/inference/gpt/gpt_dynamic_inference.py \
  --cuda-graph-impl local \
  --cuda-graph-scope full_iteration_inference \
  --inference-dynamic-batching-num-cuda-graphs 16 \
  --decode-only-cuda-graphs \
  --te-rng-tracker \
  "$@"
# fp8 + full_iteration_inference additionally needs --transformer-impl inference_optimized and
# --fp8-recipe mxfp8 (0.17 arguments.py asserts both).
# Verify: the log must show "> built cuda graph(s) in ..."; no such line = eager decode.
