# mixtral-pp8-graphs.nomad.hcl
#
# Mixtral-style MoE, 8xH100, PP=8, TE CUDA graphs on attn (megatron-core 0.19).
#
# Why the previous job OOM'd inside make_graphed_callables while eager used ~40% HBM:
# with PP>1 the TE helper records one fwd+bwd graph per layer *per microbatch*, each with
# its own static input/output/grad buffers and pool memory. GBS 128 / (MBS 1 x DP 1) = 128
# microbatches x 4 layers per stage = 512 graph pairs per GPU. Eager only holds the
# microbatches in flight; graphs hold all of them for replay. Graphs need headroom -
# they are a speed feature, not a way to fit.
#
# Changes vs. the failing job:
#   - MBS 1 -> 4: 32 microbatches instead of 128 (4x fewer graph sets)
#   - scope stays attn only
#   - newer container (TE >= 2.7: MCore turns on _reuse_graph_input_output_buffers)
#   - expandable segments + NCCL_GRAPH_REGISTER=0 (TE impl asserts without the latter)
#
# If capture still runs out of memory on the first stages after this, add
#   --cpu-offloading-num-layers 2
# to the args below: offloading the activations of the first layers frees exactly the
# HBM the graph pool needs, and the attn graphs are unaffected because only activations
# move to the host.

job "mixtral-pp8-graphs" {
  datacenters = ["gpu-a"]
  type        = "batch"

  group "train" {
    count = 1

    task "torchrun" {
      driver = "docker"

      config {
        image   = "nvcr.io/nvidia/pytorch:26.03-py3"
        command = "torchrun"
        args = [
          "--nproc-per-node", "8",
          "pretrain_gpt.py",
          "--pipeline-model-parallel-size", "8",
          "--micro-batch-size", "4",
          "--global-batch-size", "128",
          "--cuda-graph-impl", "transformer_engine",
          "--cuda-graph-modules", "attn",
          "--cuda-graph-warmup-steps", "3",
          "--te-rng-tracker",
          "--log-memory-to-tensorboard",
        ]
      }

      env {
        PYTORCH_CUDA_ALLOC_CONF = "expandable_segments:True"
        NCCL_GRAPH_REGISTER     = "0"
        CUDA_DEVICE_MAX_CONNECTIONS = "1"
      }

      resources {
        cpu    = 64000
        memory = 900000
        device "nvidia/gpu" {
          count = 8
        }
      }
    }
  }
}
