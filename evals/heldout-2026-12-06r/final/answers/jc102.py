# cuda_graphs_llama31_8b.py -- enable TE-scoped CUDA graphs for Llama 3.1 8B (MCore 0.19, Bridge)
# usage: torchrun --nproc-per-node 8 cuda_graphs_llama31_8b.py
from megatron.bridge.recipes.llama import llama31_8b_pretrain_config
from megatron.bridge.training.gpt_step import forward_step
from megatron.bridge.training.pretrain import pretrain

cfg = llama31_8b_pretrain_config()

# parallelism / shapes -- keep these static, graphs are captured per shape
cfg.model.tensor_model_parallel_size = 1
cfg.model.pipeline_model_parallel_size = 1
cfg.model.seq_length = 8192
cfg.train.micro_batch_size = 1

# CUDA graphs: start with Transformer Engine scoped capture on attention.
# Dense model -> "attn" first, then A/B ["attn", "mlp"].
cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_modules = ["attn"]
cfg.model.cuda_graph_warmup_steps = 3

# graph-safe RNG (required)
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True

# Benchmark: log every iteration and take the mean of iterations 1-20 for the
# graphed run vs. the eager run. Same window for both runs keeps it apples-to-apples.
cfg.train.train_iters = 20
cfg.logger.log_interval = 1

if __name__ == "__main__":
    pretrain(cfg, forward_step)
