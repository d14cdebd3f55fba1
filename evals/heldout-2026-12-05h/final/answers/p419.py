"""Llama 3 70B pretraining on 64 x H100 (8 nodes x 8) with Megatron Bridge: choosing TP/PP/CP.

Rules of thumb, in this order:
  1. TP stays inside a node (NVLink). TP=4 or 8; never span nodes. TP=4 with
     sequence_parallel is the usual sweet spot for 70B (hidden 8192, 64 heads, 8 KV groups;
     TP must divide the 8 KV heads, so 1/2/4/8).
  2. PP to make the model fit: 80 layers / PP=4 -> 20 layers per stage. Add virtual pipeline
     (VPP) to shrink the bubble; VPP=5 -> 4 layers per virtual chunk.
  3. CP only for long sequences: CP=1 at 4K, CP=2 at 8K (what Bridge's 70B H100 recipe uses),
     larger (4-8) for 16K-64K+. CP multiplies into the model-parallel product.
  4. DP takes the rest: DP = 64 / (TP * PP * CP). Use the distributed optimizer so optimizer
     state shards over DP.
Bridge's own Llama 3 70B H100 pretrain recipe (32 GPUs, 8K seq) uses TP=4, PP=4, VPP=5, CP=2,
SP=True, so on 64 GPUs the same layout gives DP=2. Check memory with a short run before
committing, and tweak one knob at a time.
"""
from megatron.bridge.recipes.llama import llama3_70b_pretrain_config
from megatron.bridge.training.gpt_step import forward_step
from megatron.bridge.training.pretrain import pretrain

WORLD = 64
GPUS_PER_NODE = 8
SEQ = 8192

cfg = llama3_70b_pretrain_config()

cfg.model.tensor_model_parallel_size = 4
cfg.model.sequence_parallel = True               # pairs with TP>1
cfg.model.pipeline_model_parallel_size = 4
cfg.model.virtual_pipeline_model_parallel_size = 5
cfg.model.context_parallel_size = 2              # 8K; use 1 at 4K, 4-8 for 32K-64K
cfg.model.seq_length = SEQ
cfg.dataset.seq_length = SEQ

tp = cfg.model.tensor_model_parallel_size
pp = cfg.model.pipeline_model_parallel_size
cp = cfg.model.context_parallel_size
vpp = cfg.model.virtual_pipeline_model_parallel_size

assert tp <= GPUS_PER_NODE and GPUS_PER_NODE % tp == 0, "keep TP inside one NVLink node"
assert 8 % tp == 0, "TP must divide the 8 KV heads (GQA)"
assert 80 % (pp * vpp) == 0, "80 layers must split evenly over PP x VPP"
assert WORLD % (tp * pp * cp) == 0
dp = WORLD // (tp * pp * cp)
print(f"TP={tp} PP={pp} VPP={vpp} CP={cp} -> DP={dp}")   # DP=2

# global batch must be a multiple of micro_batch * DP; with interleaved PP the number of
# microbatches per DP rank should be a multiple of PP.
assert cfg.train.global_batch_size % (cfg.train.micro_batch_size * dp) == 0

# Alternatives to benchmark:
#   TP=8, PP=2, VPP=10, CP=2 -> DP=2   (less pipeline bubble, more TP comm)
#   TP=4, PP=4, VPP=5, CP=1  -> DP=4   (only if SEQ <= 4096)
pretrain(cfg, forward_step)
