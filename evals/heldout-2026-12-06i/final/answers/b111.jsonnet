// overrides/full_iteration_graph_mcore016.libsonnet
// Mixin: whole-iteration CUDA graph for Megatron Bridge on megatron-core 0.16.1.
//
// 0.16/0.17 have no cuda_graph_impl="full_iteration" and no cuda_graph_modules (both arrived
// in 0.18). On this release, whole-iteration capture is a *scope* value: cuda_graph_scope
// takes "full_iteration", and the graph wraps the whole forward+backward of the iteration
// (the optimizer step is not included).
//
// The full-iteration graph can't contain host syncs, so both NaN checks are disabled below
// (Bridge asserts on the loss one). TE RNG tracker is required whenever graphs are on.
//
// Usage:
//   local base = import 'recipes/llama31_8b.libsonnet';
//   local fig  = import 'overrides/full_iteration_graph_mcore016.libsonnet';
//   base + fig

{
  model+: {
    cuda_graph_impl: 'transformer_engine',   // graph capture backend (TE graphed callables)
    cuda_graph_scope: ['full_iteration'],    // 0.16 spelling for whole-iteration capture
    cuda_graph_warmup_steps: 3,
    use_te_rng_tracker: true,
  },
  rng+: {
    te_rng_tracker: true,
  },
  rerun_state_machine+: {
    check_for_nan_in_loss: false,            // loss NaN check syncs to host -> not capturable
  },
  ddp+: {
    check_for_nan_in_grad: false,            // same for the grad NaN check
  },
  train+: {
    // static shapes: the captured iteration is specialized to these
    micro_batch_size: 1,
  },
}

// Checklist before you launch:
//  - seq_length identical in model and dataset; no variable-length batches
//  - no cpu_offloading
//  - if PYTORCH_CUDA_ALLOC_CONF has expandable_segments:True, export NCCL_GRAPH_REGISTER=0
//  - only time iterations after warmup + capture (the first ~5) when comparing with eager
//  - after the upgrade to >= 0.18, switch to cuda_graph_impl='full_iteration' with cuda_graph_modules: []
