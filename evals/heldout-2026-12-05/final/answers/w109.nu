#!/usr/bin/env nu
# launch_fullgraph.nu -- one CUDA graph for the whole training iteration
# cluster image: Megatron Bridge on megatron-core 0.16.1

# static shapes only: fixed sequence length and micro-batch size
const SEQ = 8192
const MBS = 1

let overrides = [
    # whole forward+backward captured as a single graph (optimizer step stays eager)
    "model.cuda_graph_impl=full_iteration"
    "model.cuda_graph_warmup_steps=3"
    # graph-safe RNG, both places
    "model.use_te_rng_tracker=true"
    "rng.te_rng_tracker=true"
    # the NaN checks sync with the host every step -> cannot live inside the captured iteration
    "rerun_state_machine.check_for_nan_in_loss=false"
    "ddp.check_for_nan_in_grad=false"
]

print $"launching with ($overrides | length) CUDA-graph overrides"

(^torchrun --nproc-per-node 8 scripts/training/run_recipe.py
    --recipe llama31_8b_pretrain_config
    --seq_length $SEQ
    $"train.micro_batch_size=($MBS)"
    ...$overrides)

# check the log for:
#   Capture CUDA graph for training!!!
#   CUDA graph capture done for training!!!
# then compare post-capture step times with an eager run (same seed)
