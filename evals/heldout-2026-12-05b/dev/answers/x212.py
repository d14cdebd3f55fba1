#!/usr/bin/env python3
"""sizing.py: enumerate TP / PP / VPP / CP / DP layouts for Llama 3 70B pretraining
on 64 H100s (8 nodes x 8) with Megatron Bridge, and rank them by the usual rules.

Rules applied (parallelism sizing, nothing else):
  * TP stays inside a node (NVLink): TP in {2, 4, 8}; it must divide the 64 query
    heads and the 8 KV groups.
  * PP is added to fit memory; layers (80) must split evenly over PP x VPP, and
    VPP > 1 (interleaved schedule) shrinks the pipeline bubble. The bubble fraction
    is roughly (PP - 1) / (VPP * num_microbatches).
  * CP only for long sequences (>= 8k); it splits the sequence across GPUs.
  * DP = 64 / (TP * PP * CP) takes the rest and must be >= 1; global batch size must
    divide by DP * micro-batch size.
  * Sequence parallel is on whenever TP > 1.

The memory estimate is deliberately rough (weights + grads + Adam with a distributed
optimizer, plus a per-layer activation term). Confirm the short list with the
parallelism-strategies skill / a real memory estimator and a few-step run.
"""

from itertools import product

GPUS, GPUS_PER_NODE, HBM_GB = 64, 8, 80
LAYERS, HIDDEN, HEADS, KV_GROUPS = 80, 8192, 64, 8
PARAMS = 70.6e9
SEQ, MBS, GBS = 8192, 1, 512


def memory_gb(tp, pp, vpp, cp, dp):
    shard = tp * pp
    weights_grads = PARAMS / shard * (2 + 4)              # bf16 weights + fp32 main grads
    optimizer = PARAMS / shard * 12 / dp                  # fp32 master + m + v, distributed optimizer
    layers_here = LAYERS / pp
    # ~34*s*b*h bytes per layer with selective recompute, split by TP (with SP) and CP;
    # the interleaved schedule keeps ~pp micro-batches of activations alive on stage 0
    act = 34 * (SEQ / cp) * MBS * HIDDEN / tp * layers_here * min(pp, GBS // (MBS * dp))
    return (weights_grads + optimizer + act) / 1e9


rows = []
for tp, pp, vpp, cp in product((2, 4, 8), (1, 2, 4, 8), (1, 2, 4, 5, 10), (1, 2, 4)):
    if tp > GPUS_PER_NODE or HEADS % tp or KV_GROUPS % tp:
        continue
    if LAYERS % (pp * vpp) or (pp == 1 and vpp > 1):
        continue
    if GPUS % (tp * pp * cp):
        continue
    dp = GPUS // (tp * pp * cp)
    if GBS % (dp * MBS):
        continue
    mem = memory_gb(tp, pp, vpp, cp, dp)
    if mem > HBM_GB:
        continue
    nmb = GBS // (dp * MBS)
    bubble = (pp - 1) / (vpp * nmb) if pp > 1 else 0.0
    rows.append((bubble, mem, tp, pp, vpp, cp, dp))

# rank: smallest TP first (less TP communication), then DP as large as possible,
# then the smallest bubble
rows.sort(key=lambda r: (r[2], -r[6], r[0]))
print(f"{'TP':>3} {'PP':>3} {'VPP':>4} {'CP':>3} {'DP':>3} {'mem GB':>7} {'bubble':>7}")
for bubble, mem, tp, pp, vpp, cp, dp in rows[:15]:
    print(f"{tp:>3} {pp:>3} {vpp:>4} {cp:>3} {dp:>3} {mem:>7.1f} {bubble:>7.3f}")

# Starting point for 8k sequences, matching Bridge's own Llama 3 70B H100 recipe
# (TP=4, PP=4, VPP=5, CP=2, SP on), which on 64 GPUs leaves DP=2:
#
#   cfg.model.tensor_model_parallel_size = 4
#   cfg.model.pipeline_model_parallel_size = 4
#   cfg.model.virtual_pipeline_model_parallel_size = 5
#   cfg.model.context_parallel_size = 2
#   cfg.model.sequence_parallel = True
#
# For 4k sequences drop CP to 1 (DP=4). For 16k+ raise CP (Bridge's 16k recipe uses
# TP=8, PP=2, CP=2; its 64k recipe uses TP=8, PP=4, CP=8) and keep TP at 8, not beyond
# the node.
