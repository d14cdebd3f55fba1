"""Fused row-wise softmax in Triton with autotuned BLOCK_SIZE / num_warps.

How to think about the knobs:
  * BLOCK_SIZE  - number of columns a program handles per load. Must be a power of two
                  (tl.arange requirement). Bigger blocks = fewer, fatter programs and more
                  registers per thread; smaller blocks = better occupancy. Let autotune pick.
  * num_warps   - threads per program (32 * num_warps). Scale it with BLOCK_SIZE: ~4 warps up
                  to 1-2K elements, 8 for 2-4K, 16 beyond.
  * num_stages  - software pipelining depth for the loads; 1-3 is plenty for softmax.

Autotune keys on n_cols, so each row length is tuned once and cached.
"""
import torch
import triton
import triton.language as tl


def _configs():
    cfgs = []
    for bs in (256, 512, 1024, 2048, 4096):
        for nw in (4, 8, 16):
            if nw * 32 > bs:          # don't launch more threads than elements
                continue
            cfgs.append(triton.Config({"BLOCK_SIZE": bs}, num_warps=nw, num_stages=2))
    return cfgs


@triton.autotune(configs=_configs(), key=["n_cols"])
@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_SIZE)
    mask = offs < n_cols                       # masking takes care of ragged row ends
    x = tl.load(in_ptr + row * in_stride + offs, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)                  # subtract row max for stability
    e = tl.exp(x)
    y = e / tl.sum(e, axis=0)
    tl.store(out_ptr + row * out_stride + offs, y, mask=mask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    # one program per row; BLOCK_SIZE / num_warps come from the autotuner
    softmax_kernel[(n_rows,)](y, x, x.stride(0), y.stride(0), n_cols)
    return y


if __name__ == "__main__":
    x = torch.randn(8192, 3072, device="cuda", dtype=torch.float16)
    y = softmax(x)                                     # first call runs the autotuner
    print("best config:", softmax_kernel.best_config)

    ms = triton.testing.do_bench(lambda: softmax(x))
    ms_ref = triton.testing.do_bench(lambda: torch.softmax(x, dim=-1))
    gbps = 2 * x.numel() * x.element_size() * 1e-9 / (ms * 1e-3)
    print(f"triton {ms:.3f} ms ({gbps:.0f} GB/s)   torch {ms_ref:.3f} ms")
    # softmax is memory-bound: compare GB/s with the card's HBM bandwidth, and keep the
    # config space small since every entry is compiled and timed on the first call per n_cols.
