// full_iteration_graph_mcore016.jsonnet
//
// One CUDA graph for the whole training iteration (forward + backward, optimizer excluded),
// Megatron Bridge on megatron-core 0.16.1.
//
// Era: 0.16/0.17 have no cuda_graph_impl="full_iteration" and no cuda_graph_modules (both 0.18+).
// Full-iteration capture is the *local* implementation with the scope value "full_iteration",
// listed alone. transformer_engine + "full_iteration" is refused
// ("To use full iteration cuda graph, please use cuda_graph_impl=local ...").
//
// Render:  jsonnet full_iteration_graph_mcore016.jsonnet > overrides.json
// and merge it into the ConfigContainer (or translate to the Hydra overrides at the bottom).

local graph = {
  cuda_graph_impl: 'local',
  cuda_graph_scope: ['full_iteration'],
  cuda_graph_warmup_steps: 3,
  use_te_rng_tracker: true,
};

{
  model: graph,

  rng: {
    te_rng_tracker: true,  // graph-safe RNG, required with any CUDA graph
  },

  // NaN checks read values back to the host; a full-iteration graph cannot contain that sync.
  // Bridge asserts on the loss check: "check_for_nan_in_loss must be disabled when using
  // full_iteration CUDA graph."  The recipes turn the grad check on, so clear it as well.
  rerun_state_machine: {
    check_for_nan_in_loss: false,
  },
  ddp: {
    check_for_nan_in_grad: false,
  },

  // Same thing as Hydra-style overrides for scripts/training/run_recipe.py:
  hydra_overrides:: [
    'model.cuda_graph_impl=local',
    'model.cuda_graph_scope=[full_iteration]',
    'model.cuda_graph_warmup_steps=3',
    'model.use_te_rng_tracker=true',
    'rng.te_rng_tracker=true',
    'rerun_state_machine.check_for_nan_in_loss=false',
    'ddp.check_for_nan_in_grad=false',
  ],

  // Keep seq_length and micro_batch_size fixed for the whole run (static shapes), and compare
  // iterations after capture with an eager run -- the capture step itself is not representative.
}
