"""Read files of an upstream repository's git directory at a tag (no work tree, no checkout).

The harvesters get the directory from the ``fetch`` tool or any bare clone; nothing here runs
upstream code: files are read as text and parsed with ``ast``/``yaml``.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass

MEGATRON_LM = "NVIDIA/Megatron-LM"
BRIDGE = "NVIDIA-NeMo/Megatron-Bridge"
MLM_TAGS = ("core_v0.16.0", "core_v0.17.0", "core_v0.18.0", "core_v0.19.0")
BRIDGE_TAGS = ("v0.3.1", "v0.4.0", "v0.5.0", "v0.6.0")
#: megatron-core each Bridge tag pins (its 3rdparty/Megatron-LM submodule: v0.3.1 -> core_v0.16.1;
#: v0.4.0, v0.5.0, v0.6.0 -> main commits whose package_info.py says 0.17.0, 0.18.0, 0.19.0).
BRIDGE_MCORE = {"v0.3.0": "0.16.1", "v0.3.1": "0.16.1", "v0.4.0": "0.17.0", "v0.4.1": "0.17.0", "v0.4.2": "0.17.0",
                "v0.5.0": "0.18.0", "v0.5.1": "0.18.0", "v0.6.0": "0.19.0"}


def mcore_of(repo: str, tag: str) -> str:
    """The megatron-core version a tag of either repository runs on."""
    if repo == MEGATRON_LM:
        return tag[len("core_v"):]
    return BRIDGE_MCORE[tag]


@dataclass(frozen=True)
class GitSource:
    repo: str
    git_dir: str

    def _git(self, *args: str) -> str:
        return subprocess.run(["git", "--git-dir", self.git_dir, *args], check=True, capture_output=True,
                              text=True, errors="replace").stdout

    def show(self, tag: str, path: str) -> str:
        return self._git("show", f"{tag}:{path}")

    def files(self, tag: str, under: str = "") -> list[str]:
        out = self._git("ls-tree", "-r", "--name-only", tag, *([under] if under else []))
        return [ln for ln in out.splitlines() if ln]

    def grep_files(self, tag: str, pattern: str, *paths: str) -> list[str]:
        """Files at ``tag`` under ``paths`` whose text matches ``pattern`` (extended regex)."""
        proc = subprocess.run(["git", "--git-dir", self.git_dir, "grep", "-l", "-E", pattern, tag, "--", *paths],
                              capture_output=True, text=True, errors="replace")
        return sorted({ln.split(":", 1)[1] for ln in proc.stdout.splitlines() if ":" in ln})
