# my_recipe.py — full-iteration CUDA graph on top of the stock Bridge recipe (megatron-core 0.19)
from megatron.bridge.recipes.llama import llama31_8b_pretrain_config


def full_iteration_graph_config(**kwargs):
    cfg = llama31_8b_pretrain_config(**kwargs)

    # One graph for forward+backward of the whole iteration (0.18+ spelling)
    cfg.model.cuda_graph_impl = "full_iteration"
    cfg.model.cuda_graph_modules = []          # must stay empty with full_iteration
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # No CPU-GPU syncs allowed inside the captured iteration
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False      # the stock recipe turns this on

    # param all-gather launched by the previous optimizer step would be waited on inside
    # the graph -> keep that overlap off (plain overlap_param_gather is fine)
    cfg.optimizer.overlap_param_gather_with_optimizer_step = False

    # static shapes: do not change seq_length / micro_batch_size during the run
    return cfg
