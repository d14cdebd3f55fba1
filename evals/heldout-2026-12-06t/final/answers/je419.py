"""Llama 3 70B pretraining on 64 H100s (8 nodes x 8) with Megatron Bridge:
how to size TP / PP / CP, as a runnable starting point.

Sizing logic (DP is whatever is left: DP = 64 / (TP * PP * CP))

1. TP (tensor parallel): stay inside one NVLink node, so TP <= 8.
   TP all-reduces/all-gathers activations in every layer, and over
   InfiniBand that kills throughput. For 70B (hidden 8192, 64 heads, 8 KV heads),
   TP=4 or TP=8 both work. TP=4 leaves bigger, more efficient GEMMs; TP=8
   saves more memory per GPU. Turn on sequence_parallel with TP > 1.

2. PP (pipeline parallel): add it until the weights, grads and optimizer state
   fit, and let it span nodes (it only sends activations point to point).
   Llama 3 70B has 80 layers, so PP must divide 80 evenly: 2, 4, 5, 8...
   PP=4 gives 20 layers per stage. Use virtual pipeline (interleaving) to
   shrink the bubble: VPP must divide the layers per stage, so VPP=5
   (4 layers per virtual chunk) or VPP=2/4/10.
   Also keep num_microbatches = GBS / (DP * MBS) well above PP.

3. CP (context parallel): only for long sequences. It splits the sequence
   dimension across GPUs. At 8K, CP=2 helps with activation memory. At 4K
   you usually want CP=1 and more DP. At 32K+ use CP=4-8.

4. DP: the rest. Use the distributed optimizer so the optimizer states are
   sharded across DP ranks.

Bridge's own 70B recipe uses TP=4, PP=4, VPP=5, CP=2, SP at seq 8192 on 32
GPUs. On 64 GPUs the same layout simply gives DP=2. Validate the first few
iterations (memory per rank, step time) before committing to a long run, and
compare against TP=8, PP=2, CP=2 (DP=2) if memory is tight.
"""

from megatron.bridge.recipes.llama import llama3_70b_pretrain_config
from megatron.bridge.training.gpt_step import forward_step
from megatron.bridge.training.pretrain import pretrain

WORLD = 64


def main() -> None:
    cfg = llama3_70b_pretrain_config()

    # --- parallelism (all of these live on cfg.model) ---
    cfg.model.tensor_model_parallel_size = 4          # inside one node (NVLink)
    cfg.model.sequence_parallel = True                # pairs with TP > 1
    cfg.model.pipeline_model_parallel_size = 4        # 80 layers / 4 = 20 per stage
    cfg.model.virtual_pipeline_model_parallel_size = 5  # 20 / 5 = 4 layers per chunk
    cfg.model.context_parallel_size = 2               # seq 8192; use 1 at <= 4K

    tp = cfg.model.tensor_model_parallel_size
    pp = cfg.model.pipeline_model_parallel_size
    cp = cfg.model.context_parallel_size
    assert WORLD % (tp * pp * cp) == 0
    dp = WORLD // (tp * pp * cp)                      # = 2

    # --- batch: keep plenty of microbatches per pipeline ---
    cfg.train.micro_batch_size = 1
    cfg.train.global_batch_size = 512                 # 512 / (dp=2 * mbs=1) = 256 microbatches
    assert cfg.train.global_batch_size % (dp * cfg.train.micro_batch_size) == 0

    cfg.model.seq_length = 8192
    cfg.dataset.seq_length = 8192

    # Distributed optimizer: shard optimizer states over DP (recipe default; explicit here).
    cfg.ddp.use_distributed_optimizer = True

    pretrain(config=cfg, forward_step_func=forward_step)


if __name__ == "__main__":
    main()

# Launch (per node): torchrun --nnodes 8 --nproc_per_node 8 --rdzv_backend c10d \
#   --rdzv_endpoint $MASTER_ADDR:29500 llama3_70b_64gpu.py
