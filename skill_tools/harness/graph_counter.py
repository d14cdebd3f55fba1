"""Counts CUDA-graph captures and replays in a GPU worker process (worker side only).

Both workers report "captured" and "replayed" from these counts, so replay is observed from
``torch.cuda.CUDAGraph`` itself (MCore's wrappers, runners and TE's graphed callables all end in
it), never inferred from speed or from a flag that says a graph *would* be used.
"""

from __future__ import annotations

import torch


class GraphCounter:
    """Counts every completed ``torch.cuda.CUDAGraph`` capture and every replay in this process."""

    captures = 0
    replays = 0
    _installed = False

    @classmethod
    def install(cls) -> None:
        if cls._installed:
            return
        graph_cls = torch.cuda.CUDAGraph
        orig_replay, orig_end = graph_cls.replay, graph_cls.capture_end

        def replay(self, *a, **k):
            cls.replays += 1
            return orig_replay(self, *a, **k)

        def capture_end(self, *a, **k):
            out = orig_end(self, *a, **k)
            cls.captures += 1
            return out

        graph_cls.replay = replay
        graph_cls.capture_end = capture_end
        cls._installed = True
