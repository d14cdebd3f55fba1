"""llama3_70b_64gpu.py: Megatron Bridge launch for Llama 3 70B pretraining on 64 H100s (8 nodes x 8).

Parallelism choice
------------------
* TP = 16: tensor parallelism across a node pair. It gives the largest per-GPU weight reduction
  (70B / 16 per TP rank) with no pipeline bubble cost. Cross-node TP traffic rides the 8x400G
  InfiniBand rails, which is enough to hide TP all-reduces behind the large 8192-wide GEMMs.
* PP = 2 with VPP = 5: 80 layers / (2 x 5) = 8 layers per virtual stage; interleaving keeps the
  bubble small (keep num_microbatches a multiple of PP).
* CP = 1 at 8K sequence length; raise to 2 for 16K-32K, 4-8 beyond
  (seq_length % (2 x CP) must be 0).
* DP = 64 / (TP x PP x CP) = 2; global_batch_size must be divisible by DP x micro_batch_size.
* sequence_parallel=True (requires TP > 1); distributed optimizer shards fp32 states over DP.
Measure the first iterations (step time, max_memory_allocated) before committing to a long run.

Launch: torchrun --nnodes 8 --nproc-per-node 8 ... llama3_70b_64gpu.py
"""

from megatron.bridge.recipes.llama import llama3_70b_pretrain_config
from megatron.bridge.training.gpt_step import forward_step
from megatron.bridge.training.pretrain import pretrain


def build_config():
    cfg = llama3_70b_pretrain_config()

    cfg.model.tensor_model_parallel_size = 16
    cfg.model.pipeline_model_parallel_size = 2
    cfg.model.virtual_pipeline_model_parallel_size = 5
    cfg.model.context_parallel_size = 1
    cfg.model.sequence_parallel = True

    cfg.model.seq_length = 8192
    cfg.dataset.seq_length = 8192
    cfg.train.micro_batch_size = 1
    cfg.train.global_batch_size = 512          # divisible by DP(2) x micro(1)
    cfg.ddp.use_distributed_optimizer = True
    return cfg


if __name__ == "__main__":
    pretrain(config=build_config(), forward_step_func=forward_step)
