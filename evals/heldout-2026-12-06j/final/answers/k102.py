# ---- IPython session (node0, Bridge container w/ megatron-core 0.19) ----
# Goal: turn on CUDA graphs for Llama 3.1 8B, TP1/PP1, seq 8192, MBS 1 on 8xH100.

In [1]: from megatron.bridge.recipes.llama import llama31_8b_pretrain_config
   ...: from megatron.bridge.utils.cuda_graph import set_cuda_graph_modules

In [2]: cfg = llama31_8b_pretrain_config()
   ...: cfg.model.tensor_model_parallel_size = 1
   ...: cfg.model.pipeline_model_parallel_size = 1
   ...: cfg.model.seq_length = cfg.dataset.seq_length = 8192
   ...: cfg.train.micro_batch_size = 1

In [3]: # Dense model -> Transformer Engine scoped graphs, start with attention only.
   ...: # set_cuda_graph_modules writes cuda_graph_modules (0.18+ key) and clears the
   ...: # legacy cuda_graph_scope="full" the recipe ships with.
   ...: cfg.model.cuda_graph_impl = "transformer_engine"
   ...: set_cuda_graph_modules(cfg.model, ["attn"])
   ...: cfg.model.cuda_graph_warmup_steps = 3
   ...: cfg.model.use_te_rng_tracker = True   # required: Bridge asserts this when graphs are on
   ...: cfg.rng.te_rng_tracker = True

In [4]: cfg.model.cuda_graph_modules, cfg.model.cuda_graph_scope
Out[4]: ([<CudaGraphModule.attn: 1>], None)

In [5]: # Benchmark plan: two short runs, same seed/data/container.
   ...: #   A: cuda_graph_impl="none"
   ...: #   B: the config above
   ...: # Run train_iters=10 for both and compare the mean "elapsed time per iteration"
   ...: # over all 10 iterations. That is the honest end-to-end number, because it
   ...: # includes what graphs actually cost you (warmup + capture) instead of cherry-
   ...: # picking only the fast replays.
   ...: cfg.train.train_iters = 10
   ...: cfg.logger.log_interval = 1

In [6]: # Later, if B wins: widen to attention + MLP and rerun the same 10-iter A/B.
   ...: # set_cuda_graph_modules(cfg.model, ["attn", "mlp"])

# Notes
# - Keep seq_length and micro_batch_size fixed; graphs replay static shapes.
# - On megatron-core 0.16/0.17 the key is cuda_graph_scope=["attn"] instead of cuda_graph_modules.
# - Don't use cuda_graph_impl="local" for attn/mlp scopes; Bridge only allows local for
#   full-iteration graphs.
# - Profile eager first (nsys, steps 10-12) to check you actually have launch gaps between
#   kernels before spending time on this.
