"""Launch Llama pretraining with a full-iteration CUDA graph (megatron-core 0.19, Megatron Bridge)."""
import nemo_run as run
from megatron.bridge.recipes.llama import llama3_8b_pretrain_config
from megatron.bridge.training.gpt_step import forward_step
from megatron.bridge.training.pretrain import pretrain


def full_iteration_graph(cfg):
    # One graph for forward+backward of the whole iteration (optimizer step stays eager).
    cfg.model.cuda_graph_impl = "full_iteration"
    cfg.model.cuda_graph_modules = []          # must be empty with full_iteration
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    # The NaN checks synchronise with the host; a captured iteration cannot contain that.
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False
    return cfg


if __name__ == "__main__":
    cfg = full_iteration_graph(llama3_8b_pretrain_config())
    executor = run.LocalExecutor(ntasks_per_node=8, launcher="torchrun")
    run.run(run.Partial(pretrain, config=cfg, forward_step_func=forward_step), executor=executor, name="llama3-8b-fullgraph")
