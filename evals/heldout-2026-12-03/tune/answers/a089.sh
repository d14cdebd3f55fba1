# Megatron-LM equivalent of the fix (core 0.16): the loss/grad NaN check syncs with the
# host every step and can't live inside the captured iteration.
torchrun --nproc-per-node 8 pretrain_gpt.py $ARGS \
  --cuda-graph-impl local \
  --cuda-graph-scope full_iteration \
  --no-check-for-nan-in-loss-and-grad \
  --te-rng-tracker
# Bridge config: rerun_state_machine.check_for_nan_in_loss=False and ddp.check_for_nan_in_grad=False
