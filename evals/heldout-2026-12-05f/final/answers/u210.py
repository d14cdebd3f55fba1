#!/usr/bin/env python
"""launch_te_graphs.py -- keep expandable segments with TE CUDA graphs.

Short answer: no, don't drop expandable segments. The startup assert

    Setting NCCL_GRAPH_REGISTER=0 to avoid illegal memory access when using
    CUDA Graph with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.

fires because MCore wants NCCL to know about the graph's memory when segments
are expandable. NCCL's graph buffer registration has to be switched on so the
registrations follow the remapped segments; otherwise NCCL keeps pointers into
ranges the allocator has moved, which is the illegal-memory-access case the
message refers to. This wrapper exports the pair and then execs torchrun, so
every rank inherits it.

The check is always on for cuda_graph_impl=transformer_engine (0.16-0.19); for
the local impl it applied only on pre-Blackwell GPUs in 0.16-0.18 and was
removed in 0.19.

Usage:  python launch_te_graphs.py pretrain_gpt.py <your args>
"""

import os
import sys

REQUIRED_ENV = {
    "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True",
    "NCCL_GRAPH_REGISTER": "1",
}


def main() -> None:
    env = dict(os.environ)
    for key, value in REQUIRED_ENV.items():
        if env.get(key) not in (None, value):
            print(f"[launch] overriding {key}={env[key]!r} -> {value!r}", file=sys.stderr)
        env[key] = value
    env.setdefault("CUDA_DEVICE_MAX_CONNECTIONS", "1")

    cmd = ["torchrun", "--nproc-per-node", env.get("NPROC", "8"), *sys.argv[1:]]
    print("[launch]", " ".join(cmd), file=sys.stderr)
    os.execvpe(cmd[0], cmd, env)


if __name__ == "__main__":
    main()
