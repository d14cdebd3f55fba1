"""pretrain_gpt_graphsafe.py — thin entry point around Megatron-LM's pretrain_gpt.py
for full-iteration CUDA graphs on PyTorch 2.11 + megatron-core 0.19 + MCore DDP.

What the error means
--------------------
  UserWarning: The AccumulateGrad node's stream does not match the stream of the
  node that produced the incoming gradient
  torch.AcceleratorError: CUDA error: operation would make the legacy stream
  depend on a capturing blocking stream (cudaErrorStreamCaptureImplicit)

Autograd remembers, per AccumulateGrad node, the stream that was current when the
node was created. MCore DDP creates (and keeps) those nodes when it registers its
grad-accumulation hooks in __init__ — on the legacy default stream. The full-
iteration graph (FullCudaGraphWrapper) captures forward+backward on MCore's
shared capture stream (megatron.core.full_cuda_graph.get_shared_capture_stream()).
During the captured backward, autograd syncs the stale default stream with the
capturing stream -> the legacy stream would depend on a capturing stream -> the
capture is invalidated.

MCore 0.19 knows about this: at capture time FullCudaGraphWrapper turns on
autograd's stale-capture-stream override when PyTorch has it (pytorch/pytorch#180090)
and otherwise only logs a warning that capture may fail. Stock 2.11 wheels don't
have it, hence the crash.

Fix used here: switch the override on process-wide before the model/DDP exist, so
the AccumulateGrad nodes never bind to a stale stream, then run as usual. Needs a
PyTorch build that includes pytorch#180090.
"""

import os
import runpy

import torch

# Must run before pretrain() builds the model and wraps it in DDP.
torch.autograd.graph.set_capture_stream_override(True)


if __name__ == "__main__":
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", 0)))
    # Run Megatron-LM's own script unchanged (its __main__ block parses args,
    # builds the config container and calls pretrain()).
    runpy.run_path(os.environ.get("PRETRAIN_GPT", "pretrain_gpt.py"), run_name="__main__")

# Put this file in the Megatron-LM checkout root (next to pretrain_gpt.py).
# Launch exactly as before, only the entry point changes:
#   torchrun ... pretrain_gpt_graphsafe.py <your flags> \
#     --cuda-graph-impl full_iteration --te-rng-tracker --no-check-for-nan-in-loss-and-grad
#
# Also: if you only see capture failures right after resuming from a checkpoint,
# that was a separate bug (Megatron-LM#3871) fixed by upgrading megatron-core.
