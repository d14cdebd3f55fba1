# The fix expressed as the argv Megatron-LM's parser sees (megatron-core 0.19).
# Full recompute is the problem: it wraps the graphed attention. Selective recompute
# of the attention core keeps most of the memory savings (the S^2 softmax activations)
# and plays fine with TE scoped graphs.
import sys
from megatron.training.arguments import parse_args

argv = [
    "--num-layers", "80", "--hidden-size", "8192", "--num-attention-heads", "64",
    "--seq-length", "4096", "--max-position-embeddings", "4096",
    "--micro-batch-size", "1", "--global-batch-size", "256",
    "--tensor-model-parallel-size", "8", "--bf16",
    "--recompute-granularity", "selective",
    "--recompute-modules", "core_attn",
    "--cuda-graph-impl", "transformer_engine",
    "--cuda-graph-modules", "attn",
    "--cuda-graph-warmup-steps", "3",
    "--te-rng-tracker",
]
sys.argv = ["pretrain_gpt.py", *argv]
args = parse_args()          # same parser pretrain_gpt.py uses
assert args.recompute_granularity == "selective"
assert args.cuda_graph_impl == "transformer_engine"
# launch: torchrun --nproc-per-node 8 pretrain_gpt.py <argv...>
