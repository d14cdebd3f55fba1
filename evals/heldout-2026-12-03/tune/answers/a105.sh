# Megatron-LM: graph-safe RNG for CUDA graphs. No TE patching needed.
torchrun --nproc-per-node 8 pretrain_gpt.py $ARGS \
  --cuda-graph-impl transformer_engine \
  --cuda-graph-modules attn `# 0.18+; --cuda-graph-scope attn on 0.16/0.17` \
  --te-rng-tracker
# Bridge equivalent: cfg.model.use_te_rng_tracker=True and cfg.rng.te_rng_tracker=True.
# (validate_args would switch te_rng_tracker on with a warning anyway:
#  "te_rng_tracker is not enabled, enabling it for CUDA graphs.")
