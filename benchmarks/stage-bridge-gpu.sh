#!/usr/bin/env bash
# Stage Megatron Bridge and what its training path imports, for a GPU machine that reaches no
# package registry (Python 3.12, torch, Transformer Engine and megatron-core already there or
# carried separately). Run from the project root on a machine that reaches PyPI; writes
# .gpu-bridge/ (git-ignored through .git/info/exclude) in carry-sized folders .gpu-bridge/w1, w2, ...
#
# Every wheel is fetched with --no-deps: the list below is what `import` of Bridge's training path
# (megatron.bridge.training.pretrain, gpt_step, train, eval, utils.omegaconf_utils) loaded in a
# Python 3.12 environment with torch 2.11.0, megatron-core 0.19.2 and the device image's packages
# (checked: these wheels installed with --no-deps --target completed that import), minus what the
# device image already has (torch, transformers 5.17,
# tokenizers, huggingface-hub, safetensors, einops, tensorboard, pandas, pyarrow, scipy, rich,
# requests, pyyaml, ...). Bridge 0.6.2 pins transformers<=5.12.1; its import chain and the GPT
# pretrain path ran with the device's transformers 5.17.0, so no transformers wheel travels.
#
# Usage: bash benchmarks/stage-bridge-gpu.sh [MAX_MIB_PER_FOLDER]   (default 40)
set -euo pipefail
max_mib="${1:-40}"
root="$(git rev-parse --show-toplevel)"
cd "$root"
exclude="$(git rev-parse --git-path info/exclude)"   # also right in a git worktree
mkdir -p "$(dirname "$exclude")"
grep -qx '/.gpu-bridge/' "$exclude" 2>/dev/null || echo '/.gpu-bridge/' >> "$exclude"
rm -rf .gpu-bridge && mkdir -p .gpu-bridge/dl
PLAT=(--only-binary=:all: --python-version 3.12 --implementation cp --abi cp312 --abi abi3 --abi none
      --platform manylinux_2_39_x86_64 --platform manylinux_2_35_x86_64 --platform manylinux_2_34_x86_64
      --platform manylinux_2_31_x86_64 --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64
      --platform manylinux_2_24_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64
      --platform manylinux1_x86_64 --platform any)
# Versions: those the import chain was checked with (Python 3.12, megatron-core 0.19.2, transformers 5.17.0).
WHEELS=(
  megatron-bridge==0.6.2
  # configuration and overrides (omegaconf_utils, recipe overrides)
  omegaconf==2.3.1 hydra-core==1.3.8
  # data (megatron/bridge/data: datasets, Energon)
  datasets==5.2.0 multiprocess==0.70.19 dill==0.4.1 megatron-energon==7.4.1 braceexpand==0.1.7 webdataset==1.0.2
  multi-storage-client==1.3.1 wcmatch==10.2.1 bracex==3.2.3 filetype==1.2.0 xattr==1.3.1 cffi==2.1.1 pycparser==2.23 jmespath==1.1.0
  botocore==1.43.117 rapidyaml==0.15.2 opentelemetry-api==1.45.2 deprecation==2.1.0 lark==1.3.1
  jsonschema==4.26.0 jsonschema-specifications==2025.9.1 referencing==0.37.0 rpds-py==2026.9.1
  # training loop (pretrain.py l.19: nvidia_resiliency_ext.inprocess; gpt_step.py l.19, eval.py l.29: modelopt)
  nvidia-resiliency-ext==0.7.0 defusedxml==0.7.1
  nvidia-modelopt==0.47.0 pulp==4.2.0 orloge==1.0.0 cpsat-logutils==1.0.0
)
#: on PyPI only as a source package (pure Python; omegaconf 2.3 needs antlr4 4.9.*): built into a wheel here
SDIST_ONLY=(antlr4-python3-runtime==4.9.3)
for w in "${WHEELS[@]}"; do
  case "$w" in \#*) continue ;; esac
  python3 -m pip download -q --no-deps "${PLAT[@]}" -d .gpu-bridge/dl "$w" 2>&1 | grep -v '^WARNING' || true
done
for w in "${SDIST_ONLY[@]}"; do
  python3 -m pip wheel -q --no-deps --no-binary=:all: -w .gpu-bridge/dl "$w" 2>&1 | grep -v '^WARNING' || true
done
# one folder per carry (the device call takes at most 64 MiB with the working tree)
i=1; used=0; mkdir -p ".gpu-bridge/w$i"
for f in $(ls -S .gpu-bridge/dl/*.whl); do
  size=$(( ($(stat -c %s "$f") + 1048575) / 1048576 ))
  if [ $((used + size)) -gt "$max_mib" ] && [ "$used" -gt 0 ]; then i=$((i + 1)); used=0; mkdir -p ".gpu-bridge/w$i"; fi
  mv "$f" ".gpu-bridge/w$i/"; used=$((used + size))
done
rmdir .gpu-bridge/dl
du -sh .gpu-bridge/w*
ls .gpu-bridge/w*/ | grep -c '\.whl$' | xargs echo "wheels:"
cat <<'EOF'
staged. On the device, one call per folder (carry .gpu-bridge/wN), back to back:
  mkdir -p "$HOME/bridge-wheels" && cp .gpu-bridge/w*/*.whl "$HOME/bridge-wheels"/
and in the last call, before the run:
  python3 -m pip install -q --no-index --no-deps --no-compile --target "$HOME/bridge-site" "$HOME"/bridge-wheels/*.whl
  export PYTHONPATH=$GPU_SITE:"$HOME/bridge-site":$PWD     # GPU_SITE: where megatron-core + Transformer Engine are installed
  python3 -c "import megatron.bridge.training.pretrain, megatron.bridge.training.gpt_step; print('bridge ok')"
EOF
