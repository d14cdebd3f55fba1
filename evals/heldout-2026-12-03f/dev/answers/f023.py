# backport_overrides.py - build Bridge CLI overrides for the megatron-core 0.17 image.
# cuda_graph_modules and cuda_graph_impl="full_iteration" only exist from 0.18 on;
# on 0.17 the list key is cuda_graph_scope and full_iteration is a scope value.
import subprocess, sys

MCORE_017_OVERRIDES = [
    "model.cuda_graph_impl=transformer_engine",
    "model.cuda_graph_scope=[full_iteration]",
    "model.cuda_graph_warmup_steps=3",
    "rerun_state_machine.check_for_nan_in_loss=false",
    "ddp.check_for_nan_in_grad=false",
    "model.use_te_rng_tracker=true",
    "rng.te_rng_tracker=true",
]

cmd = ["torchrun", "--nproc-per-node=8", "scripts/training/run_recipe.py",
       "--recipe", sys.argv[1], *MCORE_017_OVERRIDES]
subprocess.run(cmd, check=True)
