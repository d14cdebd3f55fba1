"""Write the eval tasks' workspace base configs from upstream's stock files (config values only).

Each workspace file is an upstream stock config at a tag: a Megatron-LM launch script's variable
and flag lines, a Megatron Bridge recipe YAML's keys. Comments, licence headers and blank lines are
dropped (the values are the facts a task needs; nothing else is copied); a header cites the tag and
file. Run from the repository root with the two upstream git directories:

    python scripts/harvest_eval_workspaces.py --megatron-lm PATH/TO/Megatron-LM.git --bridge PATH/TO/Megatron-Bridge.git

The files are committed under evals/workspaces/<task id>/; the tasks name them in
``rubric.outcome.base``.
"""

from __future__ import annotations

import argparse
import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: task id -> (upstream, tag, path in upstream, file name in the workspace)
SOURCES = {
    "workspace-mlm-full-iteration": ("megatron-lm", "core_v0.19.0", "examples/gpt3/train_gpt3_175b_distributed.sh",
                                     "train_gpt3_175b_distributed.sh"),
    "workspace-bridge-yaml-te-graphs": ("bridge", "v0.6.0", "tutorials/recipes/llama/conf/llama32_1b_pretrain.yaml",
                                        "llama32_1b_pretrain.yaml"),
}
_NAMES = {"megatron-lm": "NVIDIA/Megatron-LM", "bridge": "NVIDIA-NeMo/Megatron-Bridge"}


def values_only(text: str) -> list[str]:
    """The lines that carry values: no comment lines, no trailing comments, no blank lines."""
    out = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        out.append(re.sub(r"\s+#(?![^'\"]*['\"]\s*$).*$", "", line).rstrip())
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--megatron-lm", required=True, help="Megatron-LM git directory (bare is fine)")
    ap.add_argument("--bridge", required=True, help="Megatron-Bridge git directory (bare is fine)")
    args = ap.parse_args()
    gits = {"megatron-lm": args.megatron_lm, "bridge": args.bridge}
    for task, (upstream, tag, path, name) in SOURCES.items():
        text = subprocess.run(["git", f"--git-dir={gits[upstream]}", "show", f"{tag}:{path}"], check=True,
                              capture_output=True, text=True).stdout
        lines = values_only(text)
        shebang = [lines.pop(0)] if lines and lines[0].startswith("#!") else []
        header = [f"# Stock config values of {_NAMES[upstream]} {tag} {path}",
                  "# (comments and licence header dropped; harvested by scripts/harvest_eval_workspaces.py)"]
        out = REPO / "evals" / "workspaces" / task / name
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("\n".join(shebang + header + lines) + "\n", encoding="utf-8")
        print(f"{out.relative_to(REPO)}: {len(lines)} lines from {_NAMES[upstream]} {tag} {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
