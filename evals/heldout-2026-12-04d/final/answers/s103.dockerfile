# Dockerfile.fullgraph — training image for the full-iteration CUDA graph run
# Base already has megatron-core 0.19 + Megatron Bridge + Transformer Engine.
FROM nvcr.io/nvidia/nemo:megatron-bridge

# Allocator: leave expandable_segments off while graphs are on (graph pools + NCCL
# registration don't mix well with it).
ENV PYTORCH_CUDA_ALLOC_CONF=""
ENV CUDA_DEVICE_MAX_CONNECTIONS=1

# CUDA graph settings, 0.18+ spelling: one graph for the whole forward+backward.
# cuda_graph_modules must be empty with impl=full_iteration; the deprecated
# cuda_graph_scope is cleared because the stock recipe sets "full".
ENV CG_OVERRIDES="model.cuda_graph_impl=full_iteration \
 model.cuda_graph_scope=null \
 model.cuda_graph_modules=[] \
 model.cuda_graph_warmup_steps=3 \
 model.use_te_rng_tracker=true \
 rng.te_rng_tracker=true \
 ddp.check_for_nan_in_grad=false"

# Static shapes for capture.
ENV SHAPE_OVERRIDES="train.micro_batch_size=1 dataset.seq_length=8192"

WORKDIR /opt/Megatron-Bridge
CMD ["bash", "-c", "torchrun --nproc-per-node 8 scripts/training/run_recipe.py --recipe llama3_8b_pretrain_config --mode pretrain ${SHAPE_OVERRIDES} ${CG_OVERRIDES}"]
