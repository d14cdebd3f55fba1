"""Pulumi (Python): k8s Job for DeepSeek-style MoE with EP A2A overlap + delayed wgrad + TE graphs.

Scopes and prerequisites baked into the args below:
  * graph the attention, the router + preprocess, and the dense MLP of the first
    (non-MoE) layers: --cuda-graph-modules attn mlp moe_router moe_preprocess.
    The routed experts (`moe`) stay eager: they are dropless and their token
    counts change every step, and the EP A2A overlap schedules them.
  * delay_wgrad_compute inside graphs needs Transformer Engine >= 2.12 and
    gradient accumulation fusion (on by default in Megatron-LM: do NOT pass
    --no-gradient-accumulation-fusion) so wgrad lands in static main_grad buffers.
  * no attention bias: --disable-bias-linear, and no --add-qkv-bias.
  * --te-rng-tracker for graph-safe RNG.
  * EP overlap needs EP>1, alltoall/flex dispatcher, bf16, no full recompute.
Watch grad norm early (Megatron-LM#5966 reports a NaN ~80 iterations in with TE attn
graphs + EP overlap); bisect by removing the graph flags.
"""

import pulumi
import pulumi_kubernetes as k8s

IMAGE = "registry.example.com/megatron-train:te2.12"   # your image; must ship TE >= 2.12

ARGS = [
    "torchrun", "--nproc-per-node", "8", "pretrain_gpt.py",
    "--bf16",
    "--expert-model-parallel-size", "8",
    "--moe-token-dispatcher-type", "alltoall",
    "--overlap-moe-expert-parallel-comm",
    "--delay-wgrad-compute",
    "--cuda-graph-impl", "transformer_engine",
    "--cuda-graph-modules", "attn", "mlp", "moe_router", "moe_preprocess",
    "--cuda-graph-warmup-steps", "3",
    "--te-rng-tracker",
    "--disable-bias-linear",
    # ... model, data and parallelism args unchanged ...
]

job = k8s.batch.v1.Job(
    "dsv3-te-graphs",
    spec=k8s.batch.v1.JobSpecArgs(
        backoff_limit=0,
        template=k8s.core.v1.PodTemplateSpecArgs(
            spec=k8s.core.v1.PodSpecArgs(
                restart_policy="Never",
                containers=[
                    k8s.core.v1.ContainerArgs(
                        name="trainer",
                        image=IMAGE,
                        command=ARGS,
                        resources=k8s.core.v1.ResourceRequirementsArgs(limits={"nvidia.com/gpu": "8"}),
                    )
                ],
            )
        ),
    ),
)

pulumi.export("job_name", job.metadata["name"])
