# fused_softmax_autotuned.py
#
# Rule of thumb: don't hand-pick BLOCK_SIZE / num_warps — give the autotuner a grid of both and
# key it on the row width. It benchmarks every config the first time it sees a new n_cols and
# caches the fastest one.
#
#   BLOCK_SIZE  : columns processed per program (powers of two, 128..4096)
#   num_warps   : 4 for narrow rows, 8-16 for wide rows
#   num_stages  : 1-2 is plenty for a single-load kernel
#
# Configs whose BLOCK_SIZE is narrower than the row are effectively skipped: they can't beat the
# ones that cover the whole row, so the autotuner never ends up selecting them.

import torch
import triton
import triton.language as tl


def _configs():
    out = []
    for bs in (128, 256, 512, 1024, 2048, 4096):
        for w in (4, 8, 16):
            out.append(triton.Config({"BLOCK_SIZE": bs}, num_warps=w, num_stages=1))
    return out


@triton.autotune(configs=_configs(), key=["n_cols"])
@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_SIZE)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * in_row_stride + offs, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    y = num / tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    # BLOCK_SIZE / num_warps come from the autotuner
    softmax_kernel[(n_rows,)](y, x, x.stride(0), y.stride(0), n_cols)
    return y


if __name__ == "__main__":
    x = torch.randn(8192, 1536, device="cuda", dtype=torch.float16)
    y = softmax(x)
    print("best:", softmax_kernel.best_config)
    print("ms:", triton.testing.do_bench(lambda: softmax(x)))
    # benchmark against torch.softmax with triton.testing.do_bench as well
