"""Llama 3 70B pretraining on 64 H100s (8 nodes x 8) with Megatron Bridge: parallel sizes.

This is a parallelism-sizing question. Everything below is TP/PP/VPP/CP/DP; no other feature
settings are touched.

How to choose, in order
-----------------------
1. TP (tensor parallel): all-reduces/all-gathers on every layer, so keep it inside one NVLink
   node, i.e. TP <= 8 on H100. For 70B (hidden 8192, 64 heads, 8 KV heads) TP=4 is the usual
   sweet spot, and TP=8 is the fallback when memory is tight or sequences are long. Turn on
   sequence_parallel whenever TP > 1 (it shards LayerNorm/dropout activations for free).
2. PP (pipeline parallel): add stages until weights + optimizer states + activations fit. The
   80 layers must split evenly: PP in {2, 4, 5, 8, 10, ...}. With interleaving (VPP), layers per
   stage (80 / PP) must also be divisible by VPP: PP=4 -> 20 layers/stage -> VPP in {2, 4, 5, 10}.
   VPP shrinks the pipeline bubble, at the cost of more P2P traffic. It needs at least
   PP micro-batches per step (simplest: a multiple of PP, true for the GBS below).
3. CP (context parallel): only for long sequences. At 8K, CP=2 is what NVIDIA's recipe uses.
   At 16K-32K go to CP=2-4, at 64K+ CP=8 (their 64K recipe uses TP=8, PP=4, CP=8 on 256 GPUs).
   At 4K you can usually drop CP to 1.
4. DP takes the rest: DP = 64 / (TP * PP * CP). The distributed optimizer shards optimizer state
   across DP, so more DP also means less optimizer memory per GPU.
   global_batch_size must be divisible by DP * micro_batch_size.

Starting point: NVIDIA's own 70B recipe (llama3_70b_pretrain_config, "Recommended parallelism:
TP=4, PP=4, VPP=5, CP=2, SP=True", seq 8192, written for 32 GPUs). On 64 GPUs you keep the
model-parallel layout and just double DP: 4*4*2 = 32 GPUs per replica -> DP = 2.

Validate before a long run: a memory estimate, then ~20 steps watching
torch.cuda.max_memory_allocated and step time. If there's headroom, try fewer PP stages or a
lower CP (more DP); if you OOM, try TP=8 or PP=8 (VPP must still divide 80/PP).
"""

from megatron.bridge.recipes.llama import llama3_70b_pretrain_config
from megatron.bridge.training.gpt_step import forward_step
from megatron.bridge.training.pretrain import pretrain

WORLD = 64

cfg = llama3_70b_pretrain_config()

cfg.model.tensor_model_parallel_size = 4          # inside one NVLink node
cfg.model.sequence_parallel = True                # with TP > 1
cfg.model.pipeline_model_parallel_size = 4        # 80 layers / 4 = 20 per stage
cfg.model.virtual_pipeline_model_parallel_size = 5  # 20 / 5 = 4 layers per virtual chunk
cfg.model.context_parallel_size = 2               # 8K sequences
cfg.model.seq_length = 8192
cfg.dataset.seq_length = 8192

tp, pp, cp = (
    cfg.model.tensor_model_parallel_size,
    cfg.model.pipeline_model_parallel_size,
    cfg.model.context_parallel_size,
)
assert WORLD % (tp * pp * cp) == 0
dp = WORLD // (tp * pp * cp)                      # = 2
assert 80 % pp == 0 and (80 // pp) % cfg.model.virtual_pipeline_model_parallel_size == 0

cfg.train.micro_batch_size = 1
cfg.train.global_batch_size = 512                 # 512 / (dp=2 * mbs=1) = 256 micro-batches/step
assert cfg.train.global_batch_size % (dp * cfg.train.micro_batch_size) == 0

# The recipe's TP communication-overlap config is tuned for TP=4, MBS=1, seq 8192. If you
# change TP, MBS or the sequence length, swap the userbuffer config to match or disable
# cfg.comm_overlap.tp_comm_overlap.

if __name__ == "__main__":
    pretrain(config=cfg, forward_step_func=forward_step)
