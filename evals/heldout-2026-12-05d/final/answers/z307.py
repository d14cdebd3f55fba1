#!/usr/bin/env python3
"""Bisect a grad-norm -> NaN blow-up that only happens with CUDA graphs.

Setup: Qwen3-235B, TP2 PP8 VPP4 EP8, overlap_moe_expert_parallel_comm, TE per-layer graphs on
`attn`. NaN ~iter 90, gone without graph flags.

Treat it as a *replay numerics* problem until proven otherwise: graphs change no math when they
replay correctly, so a divergence that appears only with graphs means replay used wrong/stale
buffers or ran in an order the capture did not expect. Known causes that match this setup:

  * Partial (per-layer) TE graphs interleaved with the EP-overlap 1F1B schedule: open report
    Megatron-LM#5966 (exactly this: Qwen3-235B, TE `attn` graphs + EP overlap, NaN at iter 91).
    The TE helper has to map captured layers back to their chunk order when EP overlap is on.
  * Parameter / graph order under PP 1F1B interleaving (Megatron-LM#422; TE PRs #1138, #1233).
  * Weight-grad accumulation: fuse_wgrad_accumulation flags not toggled on replay (TE PR #1204).
    Keep gradient_accumulation_fusion=True, especially with delay_wgrad_compute: the unfused path
    does not write into static main_grad addresses.
  * Megatron-FSDP hooks captured in the wrong phase (TE PR #2831) - only if you use FSDP.
  * Validation replaying training graphs (Megatron-LM PR #6992) - check whether the first bad
    step follows an eval.
  * NVFP4 + `mamba` scope illegal memory access after validation (TE#3316) - not your model,
    listed for completeness.

Plan (this script): same seed, same data order, same stack; only graph flags change.
  A  graphs off                         -> reference loss / grad-norm curve
  B  graphs on, attn, EP overlap on     -> reproduces? (expected: yes)
  C  graphs on, attn, EP overlap OFF    -> isolates the graph x EP-overlap interaction
  D  graphs on, moe_router+moe_preprocess (attn eager), EP overlap on -> narrower scope
With EP overlap, TE graphs may not include `moe` or `mlp` (MCore asserts), so those are not
options here. Compare curves step by step, not just "NaN or not": a replay bug usually shows as
a growing grad-norm gap long before iteration 90.

Before running: upgrade to the newest TE + megatron-core pair you can (several fixes above are
TE-side). After: keep graphs off (or drop `attn` from the modules) for this combination until
#5966 is fixed, and re-run arm B on every TE/MCore upgrade.
"""
import json
import os
import re
import subprocess
import sys

BASE = os.environ.get("BASE_CMD", "bash train_qwen3_235b.sh").split()  # your launch, graph flags removed
ITERS = int(os.environ.get("ITERS", "120"))
SEED = os.environ.get("SEED", "1234")

COMMON = ["--seed", SEED, "--train-iters", str(ITERS), "--log-interval", "1",
          "--te-rng-tracker"]
TE = ["--cuda-graph-impl", "transformer_engine"]
# megatron-core 0.18+: --cuda-graph-modules ; on 0.16-0.17 spell it --cuda-graph-scope
MOD = "--cuda-graph-modules"

ARMS = {
    "A_eager":              ["--cuda-graph-impl", "none", "--overlap-moe-expert-parallel-comm"],
    "B_attn_epoverlap":     TE + [MOD, "attn", "--overlap-moe-expert-parallel-comm"],
    "C_attn_no_epoverlap":  TE + [MOD, "attn"],
    "D_router_epoverlap":   TE + [MOD, "moe_router", "moe_preprocess",
                                  "--overlap-moe-expert-parallel-comm"],
}

LINE = re.compile(r"iteration\s+(\d+)/.*?lm loss: ([0-9.eE+-]+|nan).*?grad norm: ([0-9.eE+-]+|nan)",
                  re.I)


def run(name, extra):
    log = f"bisect_{name}.log"
    with open(log, "w") as f:
        subprocess.run(BASE + COMMON + extra, stdout=f, stderr=subprocess.STDOUT, check=False)
    rows = {}
    for m in LINE.finditer(open(log).read()):
        rows[int(m.group(1))] = (float(m.group(2)), float(m.group(3)))
    return rows


def main():
    only = sys.argv[1:] or list(ARMS)
    curves = {name: run(name, ARMS[name]) for name in only}
    ref = curves.get("A_eager", {})
    report = {}
    for name, rows in curves.items():
        first_nan = next((i for i, (l, g) in sorted(rows.items()) if l != l or g != g), None)
        gaps = [abs(rows[i][1] - ref[i][1]) for i in rows if i in ref and rows[i][1] == rows[i][1]]
        report[name] = {"iters": len(rows), "first_nan": first_nan,
                        "max_gradnorm_gap_vs_eager": max(gaps) if gaps else None}
    print(json.dumps(report, indent=2))
    # Reading it:
    #  B NaN, C clean         -> graph x EP-overlap interaction (#5966): graphs off or no attn graph
    #  B and C NaN, D clean   -> the attn graph itself (PP order / wgrad flags): upgrade TE/MCore
    #  D NaN too              -> any graph on this PP/VPP layout; keep graphs off, report upstream
    #  B clean after upgrade  -> fixed by the upgrade; keep the loss-curve A/B in your CI


if __name__ == "__main__":
    main()
