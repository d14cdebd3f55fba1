#
# Cookbook:: mbridge_train
# Attributes:: cuda_graphs
#
# Full-iteration CUDA graph for the Bridge training job on the megatron-core 0.16.1 image.
# The recipe template renders node['mbridge']['overrides'] as key=value Hydra overrides
# appended to the launch command.
#
# Spelling on 0.16.x: cuda_graph_impl="full_iteration" and cuda_graph_modules do not exist
# yet (0.18+). On 0.16 the full-iteration graph is selected through the scope list
# entry "full_iteration", and it is captured by Transformer Engine's graph machinery,
# which is what the per-layer TE graphs already use in this image.
#

default['mbridge']['mcore_version'] = '0.16.1'

default['mbridge']['overrides'] = {
  'model.cuda_graph_impl'                     => 'transformer_engine',
  'model.cuda_graph_scope'                    => '[full_iteration]',   # alone, no other scopes
  'model.cuda_graph_warmup_steps'             => 3,
  'model.use_te_rng_tracker'                  => true,
  'rng.te_rng_tracker'                        => true,
  # the loss/grad NaN checks sync with the host -> not allowed inside the captured iteration
  'rerun_state_machine.check_for_nan_in_loss' => false,
  'ddp.check_for_nan_in_grad'                 => false,
}

# Static shapes are required: keep the job's sequence length and micro-batch size fixed
# (no variable-length batches; pad if you pack).

# Verify after the converge run: the training log must show
#   "Capture CUDA graph for training!!!" and "CUDA graph capture done for training!!!"
# then compare replay steps after the capture step with the eager baseline.
