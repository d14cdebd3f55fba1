#!/usr/bin/env bash
# Stage the Mamba kernels (causal-conv1d, mamba-ssm) for a GPU machine that reaches no package
# registry. Run from the project root on a machine that reaches PyPI; writes .gpu-mamba/ (git-ignored
# through .git/info/exclude):
#   .gpu-mamba/sdist   the two PyPI sdists, pinned (what benchmarks/build-mamba-kernels.sh builds)
#   .gpu-mamba/wheels  wheels built earlier on a GPU machine of the same image, when WHEEL_DIR is given
# PyPI has no Linux wheel of either package; a wheel built for one GPU architecture and one torch
# build is only good for those: rebuild when the GPU machine's torch or CUDA changes.
# The two sm_90 wheels are ~30 MB together, so they travel with the first call of a megatron-core/TE
# kit (its base folder is ~23 MB) or on their own.
# Usage: bash benchmarks/stage-mamba-gpu.sh [WHEEL_DIR]
#   then, on the GPU machine (carry .gpu-mamba):
#     with wheels: bash benchmarks/install-mamba-wheels.sh .gpu-mamba/wheels "$SITE"
#     without:     bash benchmarks/build-mamba-kernels.sh .gpu-mamba/sdist "$WHEELS" 480 &&
#                  bash benchmarks/install-mamba-wheels.sh "$WHEELS" "$SITE"
#   and put "$SITE" on PYTHONPATH (after megatron-core/TE's folder).
set -euo pipefail
CAUSAL_CONV1D=1.6.2.post1   # megatron-core 0.19 asserts >= 1.5.3.post1 (ssm/mamba_mixer.py l.1496-1505)
MAMBA_SSM=2.2.6.post3       # >= 2.2.6.post3 there; 2.3.x imports Mamba3's tilelang/quack-kernels at import time
root="$(git rev-parse --show-toplevel)"
cd "$root"
exclude="$(git rev-parse --git-path info/exclude)"
mkdir -p "$(dirname "$exclude")"
grep -qx '/.gpu-mamba/' "$exclude" 2>/dev/null || echo '/.gpu-mamba/' >> "$exclude"
rm -rf .gpu-mamba && mkdir -p .gpu-mamba/sdist
# metadata of these sdists imports torch and asks for nvcc; skip their CUDA build just to download
for p in "causal-conv1d==$CAUSAL_CONV1D" "mamba-ssm==$MAMBA_SSM"; do
  CAUSAL_CONV1D_SKIP_CUDA_BUILD=TRUE MAMBA_SKIP_CUDA_BUILD=TRUE python3 -m pip download -q --no-deps \
    --no-binary=:all: --no-build-isolation -d .gpu-mamba/sdist "$p" 2>&1 | grep -v '^WARNING' || true
done
if [ -n "${1:-}" ]; then
  mkdir -p .gpu-mamba/wheels
  cp "$1"/causal_conv1d-"$CAUSAL_CONV1D"-*.whl "$1"/mamba_ssm-"$MAMBA_SSM"-*.whl .gpu-mamba/wheels/
  (cd .gpu-mamba/wheels && sha256sum *.whl)
fi
du -sh .gpu-mamba/*
