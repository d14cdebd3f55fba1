# training-jobs/b200-64/fullgraph.auto.tfvars
#
# Our launcher module renders `bridge_overrides` into Hydra-style key=value args for
# run_recipe.py, so the fix for the cudaErrorStreamCaptureIsolation crash lives here.
#
# What is going on: full_iteration graphs capture forward+backward only; the optimizer step
# runs eagerly between replays. With overlap_param_gather_with_optimizer_step=True the
# optimizer step launches the first bucket's param all-gather *outside* the graph, and the
# captured forward of the next step waits on it -> "dependency created on uncaptured work in
# another stream" at the capture step (iteration 3 = after the 3 warmup steps), on every rank
# at once. Megatron-FSDP's wait_bucket_ready failure is the same pattern: start_param_sync()
# in the optimizer step issues the all-gather that the captured forward then waits for.

job_name     = "llm-b200-64n-fullgraph"
num_nodes    = 8
gpus_per_node = 8

bridge_overrides = {
  # --- CUDA graph (unchanged) ---
  "model.cuda_graph_impl"                      = "full_iteration"
  "model.cuda_graph_scope"                     = "null"
  "model.cuda_graph_warmup_steps"              = 3
  "model.use_te_rng_tracker"                   = true
  "rng.te_rng_tracker"                         = true
  "rerun_state_machine.check_for_nan_in_loss"  = false
  "ddp.check_for_nan_in_grad"                  = false

  # --- data-parallel overlap ---
  # plain param-gather overlap with the forward is issued inside the captured step: keep it
  "ddp.use_distributed_optimizer"              = true
  "ddp.overlap_grad_reduce"                    = true
  "ddp.overlap_param_gather"                   = true
  # the perf override's optimizer-step overlap is what crosses the capture boundary: off
  "ddp.overlap_param_gather_with_optimizer_step" = false
}

# Colleague's Megatron-FSDP variant of the same job.
# Megatron-LM's training.py sets these two automatically when FSDP meets cuda graphs
# (PRs #4663/#7282); Bridge does not, so they are explicit here.
bridge_overrides_fsdp = {
  "ddp.use_megatron_fsdp"                      = true
  "ddp.megatron_fsdp_cuda_graph_mode"          = true
  "ddp.fsdp_all_gather_in_start_param_sync"    = false
  # If they switch to per-layer TE graphs with FSDP instead of full_iteration: needs a TE with
  # capture_time_hooks (TE PR #2831) + MCore PR #4232, otherwise the FSDP hooks get captured in
  # the wrong phase.
}

# After apply: expect "Capture CUDA graph for training!!!" followed by
# "CUDA graph capture done for training!!!" and iterations 4.. running normally.
