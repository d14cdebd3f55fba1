#!/usr/bin/env bash
# Install the causal-conv1d and mamba-ssm wheels that benchmarks/build-mamba-kernels.sh built, into a
# target folder, and check that megatron-core will see them.
#
# mamba-ssm 2.2.x's mamba_ssm/utils/generation.py (l.14) imports GreedySearchDecoderOnlyOutput and
# SampleDecoderOnlyOutput from transformers.generation; transformers 5 removed both names (renamed
# GenerateDecoderOnlyOutput in 4.x), so `import mamba_ssm` raises ImportError, megatron-core sets
# HAVE_MAMBA_SSM False and MambaMixer says "MambaSSM is not installed" (seen on the H200 with
# transformers 5.17.0, 2026-12-03). mamba-ssm 2.3 imports GenerateDecoderOnlyOutput instead; this
# script rewrites that one import line the same way when (and only when) the old line is there.
# Usage: bash benchmarks/install-mamba-wheels.sh WHEEL_DIR TARGET   then PYTHONPATH=TARGET:...
set -eu
WH=${1:?usage: $0 WHEEL_DIR TARGET}
TARGET=${2:?usage: $0 WHEEL_DIR TARGET}
PY=${PYTHON:-python3}
"$PY" -m pip install -q --no-index --no-deps --no-compile --target "$TARGET" "$WH"/causal_conv1d-*.whl "$WH"/mamba_ssm-*.whl
GEN="$TARGET/mamba_ssm/utils/generation.py"
OLD='from transformers.generation import GreedySearchDecoderOnlyOutput, SampleDecoderOnlyOutput, TextStreamer'
NEW='from transformers.generation import GenerateDecoderOnlyOutput as GreedySearchDecoderOnlyOutput, GenerateDecoderOnlyOutput as SampleDecoderOnlyOutput, TextStreamer  # mamba-ssm 2.3 spelling (transformers 5)'
if grep -qxF "$OLD" "$GEN" && ! "$PY" -c 'from transformers.generation import GreedySearchDecoderOnlyOutput' 2>/dev/null; then
  "$PY" - "$GEN" "$OLD" "$NEW" <<'PYEOF'
import sys
path, old, new = sys.argv[1:4]
text = open(path).read()
open(path, "w").write(text.replace(old, new, 1))
print(f"{path}: transformers 5 import spelling")
PYEOF
fi
PYTHONPATH="$TARGET:${PYTHONPATH:-}" "$PY" -c "
import torch, selective_scan_cuda, causal_conv1d_cuda  # torch first: the extensions link against libc10
import megatron.core.ssm.mamba_mixer as m
assert m.HAVE_MAMBA_SSM, 'megatron-core still cannot import mamba_ssm'
import mamba_ssm, causal_conv1d
print('mamba-ssm', mamba_ssm.__version__, '| causal-conv1d', causal_conv1d.__version__, '| megatron-core sees them')"
