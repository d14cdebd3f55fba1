"""GPU-busy time from torch.profiler events (GPU-subprocess side; both training engines use it).

Busy time is the union of the kernel and memcpy intervals the profiler saw, so overlapping
kernels on several streams are not counted twice.
"""

from __future__ import annotations

from torch.autograd import DeviceType


def busy_ms(prof) -> float:
    """Milliseconds during which at least one CUDA kernel or copy ran, over a finished profile."""
    spans = sorted((e.time_range.start, e.time_range.end) for e in prof.events()
                   if e.device_type == DeviceType.CUDA and e.time_range.end > e.time_range.start)
    busy, cur_s, cur_e = 0.0, None, None
    for s, e in spans:
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                busy += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        busy += cur_e - cur_s
    return busy / 1000.0
