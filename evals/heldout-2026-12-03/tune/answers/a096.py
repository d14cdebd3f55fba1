# 64xB200 full-iteration graph: cudaErrorStreamCaptureIsolation after iteration 3
# Cause: the optimizer-step param all-gather is issued outside the captured iteration.
cfg.optimizer.overlap_param_gather_with_optimizer_step = False
cfg.comm_overlap.overlap_param_gather_with_optimizer_step = False

# Megatron-FSDP variant (capture failure in wait_bucket_ready): make sure the all-gather
# is issued at the start of param sync so it is already done before the graph replays.
cfg.ddp.megatron_fsdp_cuda_graph_mode = True
cfg.ddp.fsdp_all_gather_in_start_param_sync = True
