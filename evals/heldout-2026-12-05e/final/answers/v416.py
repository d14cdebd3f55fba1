"""fused_softmax.py: row-wise fused softmax with tuned BLOCK_SIZE and num_warps.

How the knobs are chosen
------------------------
* One program per row; the whole row lives in registers (load -> max -> exp -> sum -> store).
* BLOCK_SIZE must cover the row. Rounding it up to the next *multiple of 32* (one warp's
  width) instead of the next power of two wastes far fewer masked lanes: 1000 columns -> 1024
  either way, but 1100 columns -> 1120 instead of 2048, i.e. about half the registers and
  masked loads for awkward row lengths.
* num_warps / num_stages are autotuned, keyed on n_cols, so each distinct row length gets its
  own best config (first call per length pays the tuning cost; TRITON_PRINT_AUTOTUNING=1 shows it).
* For very long rows (register spills), switch to a looped online softmax with BLOCK_SIZE as a
  tile size in the autotune configs.
* Benchmark with triton.testing.do_bench and judge by GB/s (softmax is memory-bound).
"""

import torch
import triton
import triton.language as tl


def _block_size(n_cols: int) -> int:
    return ((n_cols + 31) // 32) * 32          # next multiple of the warp size


@triton.autotune(
    configs=[triton.Config({}, num_warps=w, num_stages=s) for w in (1, 2, 4, 8, 16) for s in (1, 2, 3)],
    key=["n_cols"],
)
@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * out_stride + cols, num / tl.sum(num, axis=0), mask=mask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    assert x.ndim == 2 and x.is_cuda
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    softmax_kernel[(n_rows,)](y, x, x.stride(0), y.stride(0), n_cols, BLOCK_SIZE=_block_size(n_cols))
    return y


if __name__ == "__main__":
    from triton.testing import do_bench

    for n_cols in (1000, 1100, 3000):
        x = torch.randn(4096, n_cols, device="cuda", dtype=torch.float16)
        torch.testing.assert_close(softmax(x), torch.softmax(x.float(), -1).half(), atol=1e-3, rtol=1e-3)
        ms = do_bench(lambda: softmax(x))
        print(f"n_cols={n_cols}: {ms:.3f} ms, {2 * x.numel() * 2 / (ms * 1e-3) / 1e9:.0f} GB/s, "
              f"torch {do_bench(lambda: torch.softmax(x, -1)):.3f} ms")
