import nemo_run as run
from megatron.bridge.recipes.llama import llama3_8b_pretrain_config
from megatron.bridge.training.gpt_step import forward_step
from megatron.bridge.training.pretrain import pretrain

def build():
    cfg = llama3_8b_pretrain_config()
    # megatron-core 0.16.1: TE-scoped graphs on attention + MLP
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = ["attn", "mlp"]
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg

if __name__ == "__main__":
    executor = run.SlurmExecutor(
        account="my_account", partition="batch", nodes=1, ntasks_per_node=8, gpus_per_node=8,
        container_image="nvcr.io/nvidia/nemo:25.11",
        env_vars={
            "CUDA_DEVICE_MAX_CONNECTIONS": "1",
            # reduce fragmentation from the graph pools
            "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True",
        },
    )
    run.run(run.Partial(pretrain, config=build(), forward_step_func=forward_step), executor=executor)
