# launch-70b-fulliter.ps1
# 70B dense on megatron-core 0.19 + Bridge: keep the full recompute (memory) and move the
# graphs from TE-scoped to a full-iteration capture, which is the only graph mode full recompute
# is allowed with ("full recompute is only supported with full iteration CUDA graph.").
# Run from the jump box; it ssh-es into the login node and submits via srun.

$Graph = [ordered]@{
    # recompute: unchanged from your config
    'model.recompute_granularity'               = 'full'
    'model.recompute_method'                    = 'uniform'
    'model.recompute_num_layers'                = '1'

    # graphs: one capture for the whole forward+backward (optimizer step stays eager)
    'model.cuda_graph_impl'                     = 'full_iteration'
    'model.cuda_graph_scope'                    = 'null'        # clear the old 0.16-style key
    'model.cuda_graph_modules'                  = '[attn]'      # carried over from the TE setup
    'model.cuda_graph_warmup_steps'             = '3'
    'model.use_te_rng_tracker'                  = 'true'
    'rng.te_rng_tracker'                        = 'true'

    # NaN checks sync with the host; they cannot sit inside the captured iteration
    'rerun_state_machine.check_for_nan_in_loss' = 'false'
    'ddp.check_for_nan_in_grad'                 = 'false'
}

$Overrides = foreach ($kv in $Graph.GetEnumerator()) { "$($kv.Key)=$($kv.Value)" }

$Remote = @(
    'srun', '--nodes=4', '--ntasks-per-node=8', '--gpus-per-node=8',
    'python', 'scripts/training/run_recipe.py',
    '--recipe', 'llama3_70b_pretrain_32gpu_h100_bf16_config', '--mode', 'pretrain'
) + $Overrides

$Launch = @{
    FilePath     = 'ssh'
    ArgumentList = @('gpu-login', ($Remote -join ' '))
    NoNewWindow  = $true
    Wait         = $true
}
Start-Process @Launch

# After it starts: look for "Capture CUDA graph for training!!!" / "CUDA graph capture done for training!!!",
# check memory after capture (the iteration graph keeps its buffers resident), and compare
# steady-state iterations with the eager run on the same seed, not the capture step.
