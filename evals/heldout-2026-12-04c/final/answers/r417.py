# fused_softmax_autotune.py
#
# How to pick BLOCK_SIZE and num_warps for a row-wise fused softmax, and autotune it.
#
# * BLOCK_SIZE is not really a free knob here: each program loads a whole row, so
#   BLOCK_SIZE = triton.next_power_of_2(n_cols) (tl.arange needs a power of two; the
#   mask handles the padded tail). If rows are too wide for registers/SRAM
#   (roughly > 16-32K fp32 columns), switch to a looped "online softmax" where
#   BLOCK_SIZE becomes a real tile size you can tune.
# * num_warps controls how many threads share one row: small rows -> 4, wide rows
#   -> 8 or 16. num_stages matters for the persistent/looped variant (pipelining loads).
# * Let @triton.autotune pick num_warps/num_stages per row width: key on the
#   quantity that changes the best config (here n_cols, the row width).
#   Each new key value triggers one benchmarking pass, then the choice is cached.
# * Benchmark with triton.testing.do_bench and check correctness vs torch.softmax.

import torch
import triton
import triton.language as tl


def _configs():
    return [
        triton.Config({}, num_warps=w, num_stages=s)
        for w in (2, 4, 8, 16)
        for s in (1, 2, 3)
    ]


@triton.autotune(configs=_configs(), key=["n_cols"])
@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)                 # numerically stable
    num = tl.exp(x)
    y = num / tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_stride + cols, y, mask=mask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    assert x.ndim == 2 and x.is_cuda
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    BLOCK_SIZE = triton.next_power_of_2(n_cols)   # passed by us, so not in the Config dicts
    softmax_kernel[(n_rows,)](y, x, x.stride(0), y.stride(0), n_cols, BLOCK_SIZE=BLOCK_SIZE)
    return y


if __name__ == "__main__":
    torch.manual_seed(0)
    for n_cols in (781, 2048, 4096, 12288):
        x = torch.randn(4096, n_cols, device="cuda", dtype=torch.float32)
        torch.testing.assert_close(softmax(x), torch.softmax(x, dim=1))
        ms_triton = triton.testing.do_bench(lambda: softmax(x))
        ms_torch = triton.testing.do_bench(lambda: torch.softmax(x, dim=1))
        gbps = lambda ms: 2 * x.numel() * x.element_size() * 1e-9 / (ms * 1e-3)
        best = softmax_kernel.best_config
        print(f"N={n_cols:6d}  triton {gbps(ms_triton):7.1f} GB/s  torch {gbps(ms_torch):7.1f} GB/s  "
              f"best: num_warps={best.num_warps} num_stages={best.num_stages}")

    # Tips:
    # - TRITON_PRINT_AUTOTUNING=1 prints the chosen config per key.
    # - Keep the config list small; every key value benchmarks all of them once.
    # - If you also launch a persistent grid (fewer programs than rows, loop inside),
    #   size it from the SM count and the kernel's occupancy, as the official
    #   02-fused-softmax tutorial does.
