# Decode graphs for the dynamic engine, as the argv our server passes to Megatron-LM's parser
# (megatron-core 0.19). full_iteration + block gives one graph for the whole decode step.
import sys
from megatron.training.arguments import parse_args

argv = [
    "--tensor-model-parallel-size", "1",
    "--bf16",
    "--cuda-graph-impl", "full_iteration",
    "--inference-cuda-graph-scope", "block",
    "--inference-max-requests", "64",
    "--inference-max-seq-length", "4096",
]
sys.argv = ["text_generation_server.py", *argv]
args = parse_args()
# Notes: capture and replay under the same torch.inference_mode(); MoE decode needs
# moe_pad_experts_for_cuda_graph_inference or inference_optimized; no PP microbatching.
