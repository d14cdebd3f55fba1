#!/usr/bin/env bash
# Build causal-conv1d and mamba-ssm wheels from their PyPI sdists on a GPU machine, for ONE target
# architecture (default sm_90, the H100/H200), against the torch installed there.
#
# Why: PyPI ships both only as sdists, and their setup.py either downloads a prebuilt wheel from
# GitHub at build time (no registry or GitHub on an isolated GPU machine) or, with *_FORCE_BUILD,
# compiles for every architecture its CUDA knows: nine targets with CUDA 13, about nine times the
# compile time. A wheel built with MAMBA_SKIP_CUDA_BUILD=TRUE is useless: mamba_ssm/__init__.py imports
# the compiled selective_scan_cuda, so megatron-core sees no mamba_ssm at all.
#
# What it does to the sources: one line inserted before setup.py's "# HACK: The compiler flag" block
# replaces the hard-coded -gencode list with the target given here; "-lineinfo" (line tables for
# profilers only) is dropped to keep the wheel small. Nothing else is changed: mamba-ssm 2.2.x also
# needs benchmarks/install-mamba-wheels.sh's one-line import fix where transformers >= 5 is installed.
#
# Seen on one H200 machine (16 cores, CUDA 13.0, torch 2.11.0+cu130, 2026-12-03), both at once:
# mamba-ssm 2.2.6.post3 in 135 s (17.6 MB wheel), causal-conv1d 1.6.2.post1 in 338 s (12.5 MB wheel).
#
# Both packages build at the same time (14 CUDA files in all) with ninja; a build still running after
# DEADLINE_S seconds is stopped and says so. Logs: WHEEL_DIR/build-<package>.log.
# Usage (on the GPU machine, torch + nvcc + ninja + setuptools + wheel there):
#   bash benchmarks/build-mamba-kernels.sh SDIST_DIR WHEEL_DIR [DEADLINE_S] [GENCODE]
#   e.g. bash benchmarks/build-mamba-kernels.sh .gpu-mamba/sdist "$HOME/mamba-wheels" 480 arch=compute_90,code=sm_90
set -u
SD=$(cd "${1:?usage: $0 SDIST_DIR WHEEL_DIR [DEADLINE_S] [GENCODE]}" && pwd)
mkdir -p "${2:?WHEEL_DIR}"
WH=$(cd "$2" && pwd)
DEADLINE_S=${3:-480}
GENCODE=${4:-arch=compute_90,code=sm_90}
PY=${PYTHON:-python3}
# ninja must be on PATH, or torch's cpp_extension compiles the files one by one
export PATH="$(dirname "$("$PY" -c 'import sys; print(sys.executable)')"):$PATH"
export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0} MAX_JOBS=${MAX_JOBS:-16}
export CAUSAL_CONV1D_FORCE_BUILD=TRUE MAMBA_FORCE_BUILD=TRUE PIP_NO_INPUT=1
WORK=${BUILD_DIR:-/tmp/mamba-build}
rm -rf "$WORK" && mkdir -p "$WORK"
echo "[build-mamba] $(date -u +%T) torch $("$PY" -c 'import torch; print(torch.__version__, torch.version.cuda)') | $(nvcc --version | tail -n 2 | head -n 1) | ninja $(ninja --version 2>/dev/null || echo MISSING) | $GENCODE | MAX_JOBS=$MAX_JOBS"

build() {  # $1 = sdist file
  local name src log
  name=$(basename "$1" .tar.gz)
  tar xzf "$1" -C "$WORK"
  src="$WORK/$name"
  log="$WH/build-${name%%-[0-9]*}.log"
  GENCODE="$GENCODE" "$PY" - "$src/setup.py" <<'PYEOF' || return 1
import os, sys
path = sys.argv[1]
lines = open(path).read().split("\n")
at = next(i for i, line in enumerate(lines) if line.strip().startswith("# HACK: The compiler flag"))
indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
lines.insert(at, f'{indent}cc_flag = ["-gencode", "{os.environ["GENCODE"]}"]  # build-mamba-kernels.sh: one target')
text = "\n".join(lines).replace('"-lineinfo",', "")
open(path, "w").write(text)
print(f"patched {path}: cc_flag = -gencode {os.environ['GENCODE']}")
PYEOF
  local t0=$SECONDS
  (cd "$src" && timeout "$DEADLINE_S" "$PY" -m pip wheel -v --no-deps --no-build-isolation --no-index -w "$WH" .) > "$log" 2>&1
  local rc=$?
  [ $rc -eq 124 ] && echo "[build-mamba] $name: stopped after ${DEADLINE_S} s (DEADLINE_S)" >> "$log"
  echo "[build-mamba] $(date -u +%T) $name: exit $rc in $((SECONDS - t0)) s; $(grep -c 'nvcc' "$log") nvcc lines; log $log"
}

pids=()
for f in "$SD"/causal_conv1d-*.tar.gz "$SD"/mamba_ssm-*.tar.gz; do
  [ -f "$f" ] || { echo "[build-mamba] no sdist matching $f"; continue; }
  build "$f" & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
ls -la "$WH"/*.whl 2>/dev/null || echo "[build-mamba] no wheel built"
echo "[build-mamba] $(date -u +%T) done"
touch "$WH/BUILD_DONE"
