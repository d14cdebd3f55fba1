# Keep expandable segments and tell NCCL not to register graph buffers.
# Both settings belong to the CUDA caching allocator config, so put them in one variable:
export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True,NCCL_GRAPH_REGISTER=0"

torchrun --nproc-per-node 8 pretrain_gpt.py $ARGS \
  --cuda-graph-impl transformer_engine --cuda-graph-modules attn --te-rng-tracker
