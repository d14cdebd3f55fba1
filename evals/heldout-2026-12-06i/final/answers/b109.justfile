# justfile — full-iteration CUDA graph for Bridge on megatron-core 0.19
#
# What this sets up (0.18+ API):
#   cuda_graph_impl = "full_iteration"  -> one graph for the whole forward+backward pass
#                                          (the optimizer step stays outside the graph)
#   cuda_graph_modules = []             -> has to be empty with full_iteration; MCore asserts
#                                          'cuda_graph_modules must be empty when cuda_graph_impl="full_iteration".'
#   cuda_graph_scope = null             -> recipes still set the deprecated key to "full"; clear it
#
# Full-iteration capture can't contain CPU<->GPU syncs. The loss NaN check (rerun state machine)
# and the DDP grad NaN check both read a value back to the host, so both have to be off.
# Bridge asserts on the loss check:
#   "check_for_nan_in_loss must be disabled when using full_iteration CUDA graph."
# Plain Megatron-LM equivalent: --cuda-graph-impl full_iteration --no-check-for-nan-in-loss-and-grad
#
# train.py = our Bridge entrypoint (recipe + parse_hydra_overrides on argv).

set shell := ["bash", "-euo", "pipefail", "-c"]

nproc := "8"
recipe := "llama31_8b_pretrain_config"

graph_overrides := "model.cuda_graph_impl=full_iteration model.cuda_graph_modules=[] model.cuda_graph_scope=null model.cuda_graph_warmup_steps=3 model.use_te_rng_tracker=true rng.te_rng_tracker=true rerun_state_machine.check_for_nan_in_loss=false ddp.check_for_nan_in_grad=false optimizer.overlap_param_gather_with_optimizer_step=false"

# eager baseline, same everything else
eager iters="40":
    torchrun --nproc-per-node {{nproc}} train.py --recipe {{recipe}} \
      train.train_iters={{iters}} model.cuda_graph_impl=none \
      2>&1 | tee logs/eager.log

# full-iteration graph run
graphed iters="40": _guard-env
    torchrun --nproc-per-node {{nproc}} train.py --recipe {{recipe}} \
      train.train_iters={{iters}} {{graph_overrides}} \
      2>&1 | tee logs/full_iter.log

# A/B on replay iterations only. Warmup (3) + capture happen at the start, so skip them.
compare:
    python tools/step_time.py logs/eager.log logs/full_iter.log --skip-first 10

_guard-env:
    #!/usr/bin/env bash
    # expandable segments + graph capture needs NCCL_GRAPH_REGISTER=0
    if [[ "${PYTORCH_CUDA_ALLOC_CONF:-}" == *expandable_segments:True* && "${NCCL_GRAPH_REGISTER:-}" != "0" ]]; then
      echo "set NCCL_GRAPH_REGISTER=0 when using expandable_segments with CUDA graphs" >&2; exit 1
    fi

# Constraints to keep in mind:
#  - static shapes: fixed seq_length and micro_batch_size, no batch-size ramp-up,
#    no variable-length packing
#  - you lose in-run NaN detection on loss/grad; watch the logged loss yourself
#  - graph buffers stay resident, so expect higher peak memory than the eager run
#  - needs 0.18+. On 0.16/0.17 the spelling is cuda_graph_impl=local + cuda_graph_scope=[full_iteration]
