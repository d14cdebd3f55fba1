# Fused row-wise softmax in Triton: how to pick BLOCK_SIZE / num_warps and autotune.
#
# BLOCK_SIZE: in the one-pass kernel each program loads a WHOLE row, so BLOCK_SIZE is not a
#   tuning knob: it must be >= n_cols, and tl.arange needs a power of two -> use
#   triton.next_power_of_2(n_cols) and mask the tail (the official fused-softmax tutorial does
#   exactly this). Autotuning BLOCK_SIZE below n_cols would silently drop columns.
# num_warps: how many warps share one row. More warps for longer rows (more elements per program,
#   reductions over more threads); too many for short rows wastes threads. This IS worth tuning.
# num_stages: software pipelining depth; matters little for a single load, tune it for the looped
#   variant below.
# Very long rows (e.g. > 32K-64K fp32 elements) no longer fit in registers -> spills. Switch to the
#   looped (online-softmax) kernel, where BLOCK_SIZE is a real tile size and can be autotuned.
import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[triton.Config({}, num_warps=w) for w in (1, 2, 4, 8, 16, 32)],
    key=["n_cols", "BLOCK_SIZE"],          # re-tune when the row length class changes
)
@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
    x = x.to(tl.float32)
    x = x - tl.max(x, axis=0)              # numerically stable
    num = tl.exp(x)
    y = num / tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    assert x.ndim == 2 and x.is_cuda
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    softmax_kernel[(n_rows,)](y, x, x.stride(0), y.stride(0), n_cols, BLOCK_SIZE=BLOCK_SIZE)
    return y


# Looped variant for long rows: two passes over the row in tiles (online max/sum, then normalize).
@triton.autotune(
    configs=[triton.Config({"BLOCK_SIZE": bs}, num_warps=w, num_stages=s)
             for bs in (1024, 2048, 4096) for w in (4, 8, 16) for s in (2, 3)],
    key=["n_cols"],
)
@triton.jit
def softmax_looped_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols,
                          BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    # running max / denominator as fp32 scalars (typed, so they are valid loop-carried values)
    m = tl.max(tl.full([BLOCK_SIZE], -float("inf"), tl.float32), axis=0)
    d = tl.sum(tl.zeros([BLOCK_SIZE], tl.float32), axis=0)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(in_ptr + row * in_row_stride + cols, mask=cols < n_cols,
                    other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
        y = tl.exp(x - m) / d
        tl.store(out_ptr + row * out_row_stride + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


if __name__ == "__main__":
    torch.manual_seed(0)
    for n_cols in (781, 4096, 12345):
        x = torch.randn(4096, n_cols, device="cuda", dtype=torch.float16)
        torch.testing.assert_close(softmax(x), torch.softmax(x.float(), dim=-1).half(),
                                   atol=1e-3, rtol=1e-3)
        ms = triton.testing.do_bench(lambda: softmax(x))
        gbps = 2 * x.numel() * x.element_size() / ms * 1e-6   # read + write
        print(f"n_cols={n_cols}: {ms:.3f} ms, {gbps:.0f} GB/s")
    # Autotuning runs on the first call per key and caches the best config; set
    # TRITON_PRINT_AUTOTUNING=1 to see which config won. Benchmark after that first call.
