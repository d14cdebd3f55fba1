"""Extract Megatron-LM functional-test launches (MODEL_ARGS) as facts for the snippet tests.

Reads ``tests/functional_tests/test_cases/<case>/model_config.yaml`` at each tag from a bare git
dir and writes, per (tag, case), the environment (``ENV_VARS``) and the flags as a list of argv tokens with the file and line they
came from. Flags that name files, directories or services of NVIDIA's CI (``${...}`` values,
checkpoint/tensorboard/data paths) are dropped; the test supplies ``--mock-data``. Only extracted
flag values are written, never upstream code.

    python scripts/extract_mlm_stock_launches.py --git-dir MLM.git --out tests/fixtures/stock/mlm_launches.json
"""

from __future__ import annotations

import argparse
import json
import subprocess

import yaml

CASES = {
    "core_v0.16.1": ["gpt/gpt3_mcore_te_tp1_pp1_dist_optimizer_no_mmap_bin_files",
                     "moe/gpt3_mcore_te_tp2_pp2_ep4_etp1_resume_torch_dist_attn_cudagraph"],
    "core_v0.19.0": ["gpt/gpt3_mcore_te_tp1_pp1_dist_optimizer_no_mmap_bin_files",
                     "moe/gpt3_mcore_te_tp2_pp2_ep4_etp1_resume_torch_dist_attn_cudagraph",
                     "moe/gpt3_mcore_te_tp1_pp1_te_4experts_groupedGEMM_op_fuser"],
}
#: Flags that point at CI files/services or only change logging/checkpoint I/O.
DROP = {"--data-path", "--vocab-file", "--merge-file", "--save", "--load", "--tensorboard-dir",
        "--data-cache-path", "--tokenizer-model", "--tokenizer-type", "--async-save",
        "--use-persistent-ckpt-worker", "--ckpt-format", "--dist-ckpt-strictness",
        "--dist-ckpt-optim-fully-reshardable", "--wandb-project", "--wandb-exp-name", "--split",
        "--ckpt-fully-parallel-load", "--ckpt-assume-constant-structure", "--exit-interval"}


def argv_of(model_args: dict) -> list[str]:
    out: list[str] = []
    for flag, value in model_args.items():
        if flag in DROP or (isinstance(value, str) and "${" in value):
            continue
        if value is True:
            out.append(flag)
        elif value is False or value is None:
            continue
        elif isinstance(value, list):
            out += [flag, *map(str, value)]
        else:
            out += [flag, *str(value).split()]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--git-dir", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    facts = []
    for tag, cases in CASES.items():
        for case in cases:
            path = f"tests/functional_tests/test_cases/{case}/model_config.yaml"
            text = subprocess.run(["git", f"--git-dir={args.git_dir}", "show", f"{tag}:{path}"],
                                  check=True, capture_output=True, text=True).stdout
            line = next(i for i, ln in enumerate(text.splitlines(), 1) if ln.startswith("MODEL_ARGS"))
            doc = yaml.safe_load(text)
            env = {k: str(v) for k, v in (doc.get("ENV_VARS") or {}).items() if "${" not in str(v)}
            facts.append({"tag": tag, "file": path, "line": line, "case": case, "env": env,
                          "argv": argv_of(doc["MODEL_ARGS"])})
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"source": "NVIDIA/Megatron-LM functional tests", "launches": facts}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
