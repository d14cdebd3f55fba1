# serve_017.py - dynamic-engine decode with whole-block CUDA graphs on megatron-core 0.17.
# 0.17 has no inference_cuda_graph_scope; block capture is the CudaGraphScope value
# full_iteration_inference (added in 0.17; 0.16 only has per-layer local inference graphs).
# On 0.18+ the same intent is --inference-cuda-graph-scope block.
import os, sys

argv = [
    "torchrun", "--nproc-per-node", "1",
    "examples/inference/gpt/gpt_dynamic_inference.py",
    "--cuda-graph-impl", "local",
    "--cuda-graph-scope", "full_iteration_inference",
    *sys.argv[1:],
]
os.execvp(argv[0], argv)
