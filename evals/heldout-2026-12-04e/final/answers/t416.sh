#!/usr/bin/env bash
# relaunch_fullgraph_64xb200.sh: relaunch the 64xB200 full-iteration run in a tmux session
#
# Diagnosis (cudaErrorStreamCaptureIsolation after iteration 3, all ranks):
#   Iteration 3 is the first captured iteration (cuda_graph_warmup_steps=3). During capture,
#   NCCL registers the communicator buffers with the graph (NCCL's graph buffer registration).
#   On this stack the registered buffers belong to the distributed-optimizer param all-gather,
#   whose stream was created before capture; registration ties the captured stream to that
#   uncaptured NCCL stream, and CUDA rejects the dependency -> StreamCaptureIsolation on every
#   rank at the same step. Disabling NCCL graph registration keeps NCCL from pulling that
#   stream into the capture, so the perf override
#   overlap_param_gather_with_optimizer_step=True can stay on (it is worth ~2-3% on 64 GPUs).
#
# Colleague's Megatron-FSDP failure in wait_bucket_ready: FSDP's bucket all-gather is issued
#   outside the captured region and waited on inside it. Megatron-FSDP has a graph mode for
#   that (MLM PRs #4663, #7282); set both ddp flags below. With TE partial graphs instead of
#   full iteration, FSDP hooks also need TE's capture_time_hooks (MLM PR #4232 / TE PR #2831).

set -euo pipefail

SESSION=${SESSION:-fullgraph64}
RECIPE=${RECIPE:-llama3_70b}
NODES=8

read -r -d '' LAUNCH <<'EOS' || true
export NCCL_GRAPH_REGISTER=0            # fix: no NCCL buffer registration during capture
export CUDA_DEVICE_MAX_CONNECTIONS=1
srun --nodes=8 --ntasks-per-node=8 --gpus-per-node=8 \
  python scripts/performance/run_script.py \
    -m llama -mr "$RECIPE" -g b200 -ng 64 \
    --cuda_graph_impl local --cuda_graph_scope full_iteration \
    optimizer.overlap_param_gather_with_optimizer_step=true \
    ddp.overlap_param_gather=true \
    rerun_state_machine.check_for_nan_in_loss=false \
    ddp.check_for_nan_in_grad=false \
    model.use_te_rng_tracker=true rng.te_rng_tracker=true \
    2>&1 | tee "logs/${RECIPE}_fullgraph_$(date +%Y%m%d_%H%M).log"
EOS

# Megatron-FSDP variant (colleague's run): same env, plus
FSDP_EXTRA="ddp.megatron_fsdp_cuda_graph_mode=true ddp.fsdp_all_gather_in_start_param_sync=false"

mkdir -p logs
tmux new-session -d -s "$SESSION" "RECIPE=$RECIPE bash -c '$LAUNCH'; bash"
echo "started in tmux session '$SESSION' (${NODES} nodes). FSDP run: append: $FSDP_EXTRA"
echo "expect: 'Capture CUDA graph for training!!!' then 'CUDA graph capture done for training!!!' after iteration 3"
