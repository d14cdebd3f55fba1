# ~/.config/fish/functions/mixtral_pp8_graphs.fish
#
# Why the OOM: with PP=8 on 8 GPUs, DP=1, so GBS 128 / MBS 1 = 128 micro-batches per step.
# TECudaGraphHelper captures one fwd+bwd graph per graphed layer *per micro-batch* in the
# pipeline schedule (4 layers/stage x 128 = 512 graph pairs per stage). Each keeps static
# input/output/grad buffers and pool memory alive for the whole run, unlike eager, which
# frees a micro-batch's activations after its backward. That is why 40% eager HBM blows up
# inside make_graphed_callables.
#
# How to fit, in order:
#   1. fewer micro-batches: MBS 4 -> 32 micro-batches (4x fewer graph buffers);
#   2. keep the scope at attn only (no whole-layer, no moe_router/moe_preprocess yet);
#   3. TE >= 2.7 / recent MCore: reuses graph input/output buffers between graphs
#      (_reuse_graph_input_output_buffers; TE PR #3427 for interleaved PP);
#   4. allocator: expandable segments to cut fragmentation after capture.
# Graphs only buy throughput when memory headroom already exists; if this still OOMs,
# run eager.

function mixtral_pp8_graphs --description 'Mixtral PP=8 with TE attn graphs, memory-trimmed'
    set -l recipe my_moe_8x7b_pp8_pretrain_config   # our Mixtral-style recipe

    # 4. allocator: less fragmentation around the graph pools
    set -gx PYTORCH_CUDA_ALLOC_CONF expandable_segments:True
    set -gx CUDA_DEVICE_MAX_CONNECTIONS 1

    torchrun --nproc-per-node 8 scripts/training/run_recipe.py \
        --recipe $recipe \
        model.pipeline_model_parallel_size=8 \
        train.micro_batch_size=4 \
        train.global_batch_size=128 \
        model.cuda_graph_impl=transformer_engine \
        model.cuda_graph_scope=null \
        'model.cuda_graph_modules=[attn]' \
        model.cuda_graph_warmup_steps=3 \
        model.use_te_rng_tracker=true \
        rng.te_rng_tracker=true \
        $argv
end

# Usage:   mixtral_pp8_graphs logger.log_interval=1
# Check:   "Rank N: 4 graphable layers." on each stage, then "Time spent in CUDA Graphs capture";
#          compare max allocated after capture with eager at the *same* MBS=4.
