# Fused row-wise softmax in Triton: picking BLOCK_SIZE / num_warps and autotuning.
#
# BLOCK_SIZE: for a one-program-per-row softmax the whole row must fit in one block, and
#   tl.arange needs a power of two -> BLOCK_SIZE = triton.next_power_of_2(n_cols), masked past n_cols.
#   It is therefore *derived*, not tuned. (If rows are too long for registers, switch to a looped /
#   online-softmax kernel and then BLOCK_SIZE becomes a real tuning knob.)
# num_warps: more warps for wider rows. Starting heuristic (from the Triton tutorial):
#   4 by default, 8 when BLOCK_SIZE >= 2048, 16 when >= 4096. Then let the autotuner confirm it.
# num_stages: only matters for software pipelining of loops; try 1-4 on the looped variant.
# Autotune key: the problem size (n_cols), so each distinct row length gets its own best config.
# Benchmark with triton.testing.do_bench (warmup + repeated timing, returns ms).

import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({}, num_warps=w, num_stages=s)
        for w in (2, 4, 8, 16)
        for s in (1, 2, 3)
    ],
    key=["n_cols"],
)
@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)                 # numerically stable
    num = tl.exp(x)
    y = num / tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, y, mask=mask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    softmax_kernel[(n_rows,)](y, x, x.stride(0), y.stride(0), n_cols, BLOCK_SIZE=BLOCK_SIZE)
    return y


if __name__ == "__main__":
    for n_cols in (512, 1024, 2048, 4096, 8192):
        x = torch.randn(4096, n_cols, device="cuda", dtype=torch.float16)
        torch.testing.assert_close(softmax(x), torch.softmax(x, dim=-1), atol=1e-3, rtol=1e-3)
        ms_triton = triton.testing.do_bench(lambda: softmax(x))
        ms_torch = triton.testing.do_bench(lambda: torch.softmax(x, dim=-1))
        gbps = lambda ms: 2 * x.numel() * x.element_size() / ms * 1e-6
        print(f"n_cols={n_cols:5d}  triton {gbps(ms_triton):7.1f} GB/s  torch {gbps(ms_torch):7.1f} GB/s  "
              f"best={softmax_kernel.best_config}")
    # Set TRITON_PRINT_AUTOTUNING=1 to see every config's timing. Softmax is memory-bound:
    # judge configs in GB/s against the GPU's bandwidth, not FLOPs.
