"""submitit launcher: MCore 0.17 dynamic-engine decode with whole-block CUDA graphs.

On megatron-core 0.17 there is no `inference_cuda_graph_scope` (that field arrives in
0.18), so passing it raises a TypeError. In 0.17 the block-level decode graph is asked
for through the training-era scope list: `cuda_graph_impl="local"` plus
`cuda_graph_scope=["full_iteration"]` makes the TransformerBlock own one graph per batch
bucket instead of one per layer. Per-layer graphs are what you get with an empty scope.

Needs: megatron-core==0.17.*, TE, one node. Run: python launch_decode_017.py
"""

import submitit


def serve_decode() -> None:
    import torch
    import megatron.core as mcore
    from megatron.core.inference.config import InferenceConfig
    from megatron.core.transformer.transformer_config import TransformerConfig

    assert mcore.__version__.startswith("0.17"), mcore.__version__

    config = TransformerConfig(
        num_layers=32, hidden_size=4096, num_attention_heads=32,   # your model's sizes
        bf16=True,
        use_te_rng_tracker=True,
        cuda_graph_impl="local",
        cuda_graph_scope=["full_iteration"],     # whole-block decode graphs on 0.17
    )
    inference_config = InferenceConfig(
        num_cuda_graphs=-1,                          # automatic buckets (0.17+); None = no graphs
        use_cuda_graphs_for_non_decode_steps=False,  # decode-only graphs
    )

    # build_model / load checkpoint / GPTInferenceWrapper / TextGenerationController /
    # DynamicInferenceContext(config, inference_config) / DynamicInferenceEngine as usual.
    # Generation must run under torch.inference_mode(), the same mode the engine
    # captures in.
    with torch.inference_mode():
        ...  # engine.generate(prompts, sampling_params)

    # Expect "> built N cuda graph(s) in … sec" at startup.


if __name__ == "__main__":
    ex = submitit.AutoExecutor(folder="logs/decode_017")
    ex.update_parameters(
        nodes=1, gpus_per_node=1, tasks_per_node=1, cpus_per_task=16,
        timeout_min=60, slurm_partition="inference",
    )
    job = ex.submit(serve_decode)
    print("submitted", job.job_id)
