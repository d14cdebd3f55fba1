#!/usr/bin/env python3
"""check_te_graphs.py -- did the TE CUDA-graph helper actually capture anything?

What happened in your run
-------------------------
    Rank 0: 0 graphable layers.
    TECudaGraphHelper: No graphable layers found. Skipping CUDA graph capture.

means CUDA graphs were *silently disabled*: ``--cuda-graph-impl transformer_engine`` was
accepted, but the helper found no layer it may graph, skipped capture and the job ran fully
eager (plus whatever the graph bookkeeping costs), hence "several times slower than expected"
compared with the graphed numbers you were expecting.

Why 0 layers on a HybridModel: the helper only graphs a layer that is a
``GraphableMegatronModule`` and looks only at the direct children of ``decoder.layers`` --
it does not recurse. With mHC (``enable_hyper_connections``) every layer sits inside a
hyper-connection wrapper that subclassed plain ``MegatronModule``, so every entry fails the
``isinstance`` check and nothing is found, whatever ``--cuda-graph-modules`` says. Fixed
upstream in Megatron-LM PR #5192 (and #7337): upgrade megatron-core, or, until you can, run
without mHC or without graphs.

After upgrading, run this on the new log. Every pipeline stage must report K > 0 graphable
layers (a stage with 0 is eager even if the others capture), and the capture time must be
logged. ``skill-tools logs run.log --json`` flags the same signature (``no-graphable-layers``).
"""

import re
import sys
from collections import OrderedDict

GRAPHABLE = re.compile(r"Rank (\d+): (\d+) graphable layers\.")
SKIPPED = "TECudaGraphHelper: No graphable layers found. Skipping CUDA graph capture."
CAPTURE_TIME = re.compile(r"Time spent in CUDA Graphs capture on rank (\d+): ([\d.]+)")


def main(path: str) -> int:
    counts: "OrderedDict[int, int]" = OrderedDict()
    capture = {}
    skipped = 0
    with open(path, errors="replace") as fh:
        for line in fh:
            if m := GRAPHABLE.search(line):
                counts[int(m.group(1))] = int(m.group(2))
            if SKIPPED in line:
                skipped += 1
            if m := CAPTURE_TIME.search(line):
                capture[int(m.group(1))] = float(m.group(2))

    if not counts:
        print("no 'graphable layers' line: TE helper never ran (impl not transformer_engine?)")
        return 1
    for rank, k in counts.items():
        print(f"rank {rank:>4}: {k} graphable layers" + ("   <-- EAGER" if k == 0 else ""))
    if capture:
        print("capture time: " + ", ".join(f"rank {r}: {t:.1f}s" for r, t in capture.items()))
    else:
        print("no capture-time line: nothing was captured")

    # the INFO line is logged once per pipeline stage, so a 0 anywhere is a stage left eager
    bad = skipped or any(k == 0 for k in counts.values()) or not capture
    print("VERDICT:", "graphs NOT captured (see docstring)" if bad else "captured on every stage")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "run.log"))
