# Full activation recompute + CUDA graphs on a 70B dense model (Megatron Bridge, megatron-core 0.19)
#
# Why it fails: with cuda_graph_modules=["attn"], only part of each layer is graphed. Full
# recompute re-runs the *whole* layer in backward, so the checkpointed region would wrap a graphed
# sub-region, and megatron-core refuses that: "full recompute is only supported with full
# iteration CUDA graph." What it wants is a "full" graph, one that covers everything the recompute
# region covers.
#
# Two ways to get there:

# ---------------------------------------------------------------------------------------------
# Option A (recommended): whole-layer TE graphs. Keeps per-layer capture, keeps full recompute.
# An empty module list means "capture the entire transformer layer", which counts as a full
# CUDA graph for the recompute check, so the graphed region and the recompute region coincide.
# ---------------------------------------------------------------------------------------------
cfg.model.recompute_granularity = "full"
cfg.model.recompute_method = "uniform"
cfg.model.recompute_num_layers = 1

cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_scope = None        # clear the recipe's "full" / old-style scope
cfg.model.cuda_graph_modules = []        # [] = whole layer -> full recompute accepted
cfg.model.cuda_graph_warmup_steps = 3
cfg.model.use_te_rng_tracker = True      # required with any CUDA graph
cfg.rng.te_rng_tracker = True
# Unlike full_iteration, this keeps the NaN-in-loss check usable (per-layer graphs don't capture
# the loss), and the optimizer/loss logic stays eager.
# Mind dropout: a graphed recompute region can't draw random numbers, so keep attention_dropout
# and hidden_dropout at 0.0 (Llama-style 70B models already do).

# ---------------------------------------------------------------------------------------------
# Option B: full-iteration capture (largest launch saving, strictest constraints)
# ---------------------------------------------------------------------------------------------
# cfg.model.cuda_graph_impl = "full_iteration"
# cfg.model.cuda_graph_scope = None
# cfg.model.cuda_graph_modules = []
# cfg.rerun_state_machine.check_for_nan_in_loss = False   # host sync can't be captured
# cfg.ddp.check_for_nan_in_grad = False
#
# On megatron-core 0.16/0.17, Option B is spelled cuda_graph_impl="local",
# cuda_graph_scope=["full_iteration"].
#
# Either way: fixed seq_length / micro-batch size, and benchmark iterations after the capture step
# against the eager full-recompute baseline. Watch memory, since graph pools stay resident on 70B.
