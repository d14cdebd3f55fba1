"""Launch Llama 3.1 8B pretraining (Megatron Bridge, megatron-core 0.19) on one ml.p5.48xlarge
(8x H100) with per-layer CUDA graphs on attention.

The entry script `train_bridge.py` builds the stock llama31_8b recipe and applies the dotted
overrides passed in the `overrides` hyperparameter (space separated, Hydra syntax) before
calling `pretrain()`.

Bring-up order (do not skip):
  1. Run once with CUDA_GRAPHS_ON = False, profile a few steady-state steps with nsys and
     check whether the GPU idles between kernels (launch gaps). If the timeline is dense,
     graphs will not buy anything: stop here.
  2. Flip CUDA_GRAPHS_ON = True. Capture happens in the step after the 3 warmup steps; that
     step is slow on purpose. Compare steps ~10-50 against the same steps of the eager run,
     same seed; the loss curves should match to bf16 noise.
  3. Only after a clean A/B, try widening GRAPH_MODULES to ["attn", "mlp"].
"""

import sagemaker
from sagemaker.pytorch import PyTorch

CUDA_GRAPHS_ON = True
GRAPH_MODULES = ["attn"]

base_overrides = [
    "model.tensor_model_parallel_size=1",
    "model.pipeline_model_parallel_size=1",
    "model.seq_length=8192",          # fixed: graphs need static shapes
    "train.micro_batch_size=1",       # fixed as well
    "dataset.sequence_length=8192",
]

graph_overrides = [
    # MCore's own per-layer CudaGraphManager: graphs each TransformerLayer sub-block
    # natively, no TE make_graphed_callables wrapper or extra static input copies.
    "model.cuda_graph_impl=local",
    "model.cuda_graph_scope=null",    # the stock recipe sets "full"; 0.19 asserts if scope and modules are both set
    "model.cuda_graph_modules=[" + ",".join(GRAPH_MODULES) + "]",
    "model.cuda_graph_warmup_steps=3",
    "model.use_te_rng_tracker=true",  # graph-safe RNG (required)
    "rng.te_rng_tracker=true",
]

overrides = base_overrides + (graph_overrides if CUDA_GRAPHS_ON else [])

estimator = PyTorch(
    entry_point="train_bridge.py",
    source_dir="src",
    role=sagemaker.get_execution_role(),
    image_uri="<account>.dkr.ecr.<region>.amazonaws.com/megatron-bridge:0.6.0-mcore0.19",
    instance_type="ml.p5.48xlarge",
    instance_count=1,
    distribution={"torch_distributed": {"enabled": True}},
    hyperparameters={
        "recipe": "llama31_8b",
        "overrides": " ".join(overrides),
    },
    environment={
        "NCCL_DEBUG": "WARN",
    },
    max_run=6 * 3600,
)

if __name__ == "__main__":
    estimator.fit(wait=False, job_name=("llama31-8b-cg-" if CUDA_GRAPHS_ON else "llama31-8b-eager-") + "ab")
