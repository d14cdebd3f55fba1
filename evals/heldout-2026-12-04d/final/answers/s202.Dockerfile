# Training image for the Mixtral PP=8 run with TE-scoped CUDA graphs on attention.
#
# Root cause of the OOM in make_graphed_callables: with pipeline parallelism the TE graph
# helper captures every layer on a stage once per microbatch (GBS 128 / MBS 1 / DP 1 = 128
# microbatches x 4 layers per stage), and each captured graph keeps static input/output/grad
# buffers plus its share of the graph pool resident. Eager frees those activations as the
# schedule drains, so 40% eager HBM says little about graph memory. Graphs are for runs with
# memory headroom and do not help a model fit.
#
# Fixes, in order of impact:
#   - fewer microbatches: MBS 4 (32 microbatches) or a smaller GBS for this run
#   - keep the scope at attn only
#   - a TE >= 2.7 / recent MCore base image so graphs reuse their input/output buffers
#   - allocator: expandable segments to cut fragmentation from hundreds of graph pools

FROM nvcr.io/nvidia/pytorch:25.09-py3

ENV CUDA_DEVICE_MAX_CONNECTIONS=1 \
    PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True \
    TORCH_NCCL_AVOID_RECORD_STREAMS=1

# Megatron-LM checkout at core_v0.19.0 (so the 0.18+ flag spelling below)
WORKDIR /workspace/Megatron-LM
COPY . .

# MBS 4 -> 32 microbatches per step with PP=8; graphs on attention only.
CMD ["torchrun", "--nproc-per-node", "8", "pretrain_gpt.py", \
     "--pipeline-model-parallel-size", "8", \
     "--micro-batch-size", "4", "--global-batch-size", "128", \
     "--num-experts", "8", "--moe-router-topk", "2", \
     "--cuda-graph-impl", "transformer_engine", "--cuda-graph-modules", "attn", \
     "--te-rng-tracker", "--bf16"]
