"""Extract the constructor fields of megatron-core's config dataclasses, per tag, as data.

Answers build these objects in Python (``InferenceConfig(num_cuda_graphs=-1, …)``,
``TransformerConfig(cuda_graph_impl="local", …)``); a keyword the dataclass lacks is a TypeError
at construction, and a field written on the wrong object never reaches the one that reads it
(``inference_cuda_graph_scope`` is a TransformerConfig field, not an InferenceConfig one). The
script reads Megatron-LM's sources at each tag with :mod:`ast` (nothing is imported), collects the
annotated fields of each class and of its bases (followed by name), and writes them per class and
tag; a class a tag does not have is absent for that tag.

    python scripts/extract_mcore_dataclass_fields.py --mlm-git-dir M.git --mlm-tag core_v0.16.1 \
        --mlm-tag core_v0.17.0 --mlm-tag core_v0.18.0 --mlm-tag core_v0.19.0 \
        --out skill_tools/data/mcore_dataclass_fields.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from extract_config_keys import Index, _files  # noqa: E402  (a sibling script)

#: The config objects answers construct, and the file each is defined in (for the citation).
CLASSES = {
    "TransformerConfig": "megatron/core/transformer/transformer_config.py",
    "InferenceConfig": "megatron/core/inference/config.py",
    "DistributedDataParallelConfig": "megatron/core/distributed/distributed_data_parallel_config.py",
    "OptimizerConfig": "megatron/core/optimizer/optimizer_config.py",
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mlm-git-dir", required=True)
    ap.add_argument("--mlm-tag", action="append", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    classes: dict[str, dict[str, list[str]]] = {c: {} for c in CLASSES}
    for tag in args.mlm_tag:
        index = Index()
        for path, text in _files(args.mlm_git_dir, tag, "megatron/core").items():
            index.add(path, text)
        for cls, path in CLASSES.items():
            if index.files.get(cls) == path:
                classes[cls][tag] = sorted(index.resolve(cls))
    data = {
        "source": {"repo": "NVIDIA/Megatron-LM", "tags": args.mlm_tag, "files": CLASSES,
                   "method": "ast: annotated class fields (InitVar included), base classes followed by name"},
        "classes": classes,
    }
    Path(args.out).write_text(json.dumps(data, indent=0) + "\n")
    print({c: {t: len(f) for t, f in v.items()} for c, v in classes.items()})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
