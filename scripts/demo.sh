#!/usr/bin/env bash
# The main job on the bundled examples: lint the skill, validate a Bridge config with
# CUDA-graph mistakes, show the fix and the overrides, recommend a scope, read a training
# log, score the bundled sample answers; on a machine with a GPU, also run the GPU path.
# Called by `make demo` with the project's virtualenv first on PATH.
set -uo pipefail
cd "$(dirname "$0")/.."

bold() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
has_cmd() { skill-tools "$1" --help >/dev/null 2>&1; }
# run EXPECTED_CODES... -- command: fail the demo on any other exit code
run() {
  local ok=() ; while [ "$1" != "--" ]; do ok+=("$1"); shift; done; shift
  printf '$ %s\n' "$*"
  "$@"; local rc=$?
  for c in "${ok[@]}"; do [ "$rc" = "$c" ] && return 0; done
  echo "demo: unexpected exit code $rc from: $*" >&2; exit 1
}

BAD=examples/bridge_llama_dense_graph_mistakes.yaml
MOE=examples/bridge_moe_dropless.yaml
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT

bold "1. lint the skill package"
run 0 -- skill-tools lint

if has_cmd validate && [ -f "$BAD" ]; then
  bold "2. validate a Megatron Bridge config that has CUDA-graph mistakes"
  run 1 -- skill-tools validate "$BAD"
  bold "3. apply era-correct overrides (written to a copy, the example stays untouched)"
  cp "$BAD" "$TMP/config.yaml"
  run 0 -- skill-tools apply "$TMP/config.yaml" --impl transformer_engine --scope attn,mlp --out "$TMP/fixed.yaml"
  run 0 -- skill-tools validate "$TMP/fixed.yaml"
  bold "   the same overrides as Megatron-LM flags for megatron-core 0.16 (legacy era)"
  run 0 -- skill-tools apply "$TMP/config.yaml" --impl transformer_engine --scope attn,mlp --mcore-version 0.16.1 --format megatron_lm
fi

if has_cmd recommend && [ -f "$MOE" ]; then
  bold "4. recommend a scope for a dropless MoE config"
  run 0 -- skill-tools recommend "$MOE"
fi

if has_cmd logs; then
  bold "5. read training logs: eager vs full-iteration graph (synthetic logs built from Megatron-LM's format strings)"
  run 0 1 -- skill-tools logs tests/fixtures/logs/synthetic_mlm_eager.log tests/fixtures/logs/synthetic_mlm_full_iteration.log
  real=benchmarks/results/2026-12-03-training-megatron-lm-h200-dense-tiny/logs
  if [ -d "$real" ]; then
    bold "   the same comparison on real Megatron-LM logs (H200, megatron-core 0.19.2)"
    run 0 1 -- skill-tools logs "$real/eager-t0.log.gz" "$real/full_iteration-t0.log.gz"
  fi
  failed=benchmarks/results/2026-12-03-training-megatron-lm-0.16.1-h200-dense-tiny/logs/full_iteration-t0.log.gz
  if [ -f "$failed" ]; then
    bold "   diagnose a real failed capture (Megatron-LM core_v0.16.1, full iteration)"
    run 1 -- skill-tools logs "$failed"
  fi
fi

if has_cmd evals && [ -f evals/answers/samples.jsonl ]; then
  bold "6. score the bundled sample answers"
  run 0 1 -- skill-tools evals score --answers evals/answers/samples.jsonl
fi

if python -c 'import torch,sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  if has_cmd bench; then
    bold "7. GPU: eager vs full-iteration graph through Megatron-LM's own training loop (tiny GPT)"
    run 0 -- skill-tools bench --workload dense --size tiny --variants eager,full_iteration --steps 30 --trials 2 --out "$TMP/bench"
  fi
else
  bold "7. GPU path skipped: no CUDA GPU on this machine (run \`make demo\` on a GPU host)"
fi
echo
echo "demo finished"
