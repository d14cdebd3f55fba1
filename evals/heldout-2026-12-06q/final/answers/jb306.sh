#!/usr/bin/env bash
# ab_steptime.sh -- is the Qwen3-30B-A3B graph run actually slower than eager?
#
# Background: graphs only remove CPU launch overhead. An alltoall-dispatch MoE
# run is often communication-bound, so "neutral / a bit slower" is a known
# outcome (Bridge docs: 42.00 s graphs vs 41.36 s eager for this exact shape).
# Before concluding anything, compare the two runs on the SAME iteration window,
# same seed, same container, same global batch.
#
# Usage: ./ab_steptime.sh eager.log graphs.log [LAST_ITER]
set -euo pipefail
EAGER=$1; GRAPH=$2; LAST=${3:-20}

# Megatron prints "iteration N/ M | ... | elapsed time per iteration (ms): X | ..."
steptimes () {
  grep -E 'iteration +[0-9]+/' "$1" \
  | sed -E 's/.*iteration +([0-9]+)\/.*elapsed time per iteration \(ms\): ([0-9.]+).*/\1 \2/' \
  | awk -v last="$LAST" '$1>=1 && $1<=last {s+=$2; n++} END {printf "%.1f ms over %d iters\n", s/n, n}'
}
# Average over the whole run so the one-off capture cost is amortised the same way
# it will be over a real multi-day job; per-iteration jitter washes out.

echo "eager : $(steptimes "$EAGER")"
echo "graphs: $(steptimes "$GRAPH")"

cat <<'NOTE'
Reading the result:
  * graphs within ~2% of eager  -> not launch-bound; graphs buy little here.
  * graphs clearly faster        -> keep them, re-run this A/B after any change to
                                    dispatcher / overlap / precision.
Next steps if neutral:
  1. nsys-profile 3-4 eager iterations; look for host gaps between kernels.
  2. check the graph log really replays (no per-step recapture / eager fallback);
     HybridEP without a static budget or host-synced token counts erode the gain,
     as do FP8 quantize kernels still running outside the graphs.
  3. A/B a narrower (moe_router+moe_preprocess) and a wider (+attn) scope.
NOTE
