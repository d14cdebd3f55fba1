#!/usr/bin/env nextflow
/*
 * Full-iteration CUDA graph for Megatron Bridge on megatron-core 0.19.
 *
 * One graph for the whole forward+backward of the training iteration (optimizer step stays eager).
 * 0.18+ spelling: cuda_graph_impl = "full_iteration" with an EMPTY cuda_graph_modules
 * (MCore: 'cuda_graph_modules must be empty when cuda_graph_impl="full_iteration".').
 *
 * Companions that are not optional:
 *   - NaN checks off. Both the loss NaN check and the DDP grad NaN check read values back to the
 *     host (a CPU-GPU sync), which cannot happen inside a captured iteration. Bridge asserts:
 *     "check_for_nan_in_loss must be disabled when using full_iteration CUDA graph."
 *     (Megatron-LM equivalent: --no-check-for-nan-in-loss-and-grad)
 *   - TE RNG tracker on (model + rng).
 *   - Static shapes: fixed seq_length / micro-batch size, no unpadded packing.
 *   - Do not enable optimizer.overlap_param_gather_with_optimizer_step: it issues the next param
 *     all-gather outside the captured iteration and the graph then waits on it.
 *   - Clear the recipe's cuda_graph_scope (stock recipes set "full" or a list; a list would be
 *     migrated into cuda_graph_modules and trip the "must be empty" assert).
 */

params.recipe     = 'llama31_8b_pretrain_config'
params.gpus       = 8
params.iters      = 50

process FULL_ITERATION_GRAPH_TRAIN {
    accelerator params.gpus, type: 'nvidia-h100'
    cpus 32

    output:
    path 'train.log'

    script:
    """
    cat > train_full_iter.py <<'PY'
from megatron.bridge.recipes.llama import ${params.recipe}
from megatron.bridge.training.gpt_step import forward_step
from megatron.bridge.training.pretrain import pretrain

cfg = ${params.recipe}()

# full-iteration CUDA graph (megatron-core 0.18+)
cfg.model.cuda_graph_impl = "full_iteration"
cfg.model.cuda_graph_scope = None
cfg.model.cuda_graph_modules = []
cfg.model.cuda_graph_warmup_steps = 3

# graph-safe RNG
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True

# no host syncs inside the captured iteration
cfg.rerun_state_machine.check_for_nan_in_loss = False
cfg.ddp.check_for_nan_in_grad = False

# param-gather overlap with the optimizer step is incompatible with a full-iteration graph
cfg.optimizer.overlap_param_gather_with_optimizer_step = False

cfg.train.train_iters = ${params.iters}
cfg.logger.log_interval = 1

pretrain(cfg, forward_step)
PY
    torchrun --nproc-per-node ${params.gpus} train_full_iter.py 2>&1 | tee train.log
    # Evidence of capture:
    grep -E "Capture CUDA graph for training|CUDA graph capture done for training" train.log
    """
}

workflow {
    FULL_ITERATION_GRAPH_TRAIN()
}

/*
 * Measuring: the iteration right after warmup includes the capture; compare later iterations
 * with an eager run (cuda_graph_impl="none", same seed). Memory goes up with a full-iteration
 * graph (static buffers for the whole step) — check peak memory before scaling out.
 * Dropless MoE models fail at capture on this path; this is for dense / drop-and-pad.
 */
