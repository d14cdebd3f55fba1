# Fused row-wise softmax in Triton: choosing BLOCK_SIZE and num_warps, and autotuning.
#
# BLOCK_SIZE
#   In the classic one-row-per-program kernel the whole row sits in one block, so
#   BLOCK_SIZE is not a free tuning knob: it has to be the smallest power of two
#   >= n_cols (triton.next_power_of_2). tl.arange needs a power of two; the mask
#   covers the padding. A smaller BLOCK_SIZE would silently normalise only the
#   first BLOCK_SIZE columns. So compute it from the shape and don't autotune it.
#   (It becomes a real tile-size knob only in a looped/online-softmax kernel
#   for rows too wide to keep in registers; see the note at the bottom.)
#
# num_warps (and num_stages)
#   These *are* worth tuning. More warps spread one row over more threads, so
#   wider rows want more warps. The tutorial's heuristic is 4, then 8 from
#   BLOCK_SIZE >= 2048, then 16 from >= 4096. Autotuning over {1,2,4,8,16} keyed
#   on the row width finds the best value on your GPU and dtype. num_stages hardly
#   matters for this single-pass kernel; it matters when you loop over rows
#   (persistent kernel) or over column tiles.
import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[triton.Config({}, num_warps=w) for w in (1, 2, 4, 8, 16)],
    key=["n_cols"],  # re-tune per distinct row width (cached after the first call)
)
@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
    x = x.to(tl.float32)
    x = x - tl.max(x, axis=0)            # numerical stability
    num = tl.exp(x)
    y = num / tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    assert x.ndim == 2 and x.is_cuda
    if x.stride(1) != 1:
        x = x.contiguous()
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)   # whole row in one block
    y = torch.empty_like(x)
    softmax_kernel[(n_rows,)](y, x, x.stride(0), y.stride(0), n_cols, BLOCK_SIZE=BLOCK_SIZE)
    return y


@triton.testing.perf_report(
    triton.testing.Benchmark(
        x_names=["N"], x_vals=[256 * i for i in range(2, 33)],
        line_arg="provider", line_vals=["triton", "torch"], line_names=["Triton", "torch.softmax"],
        ylabel="GB/s", plot_name="softmax", args={"M": 4096},
    )
)
def bench(M, N, provider):
    x = torch.randn(M, N, device="cuda", dtype=torch.float16)
    fn = (lambda: softmax(x)) if provider == "triton" else (lambda: torch.softmax(x, dim=-1))
    ms = triton.testing.do_bench(fn)           # warmup + repeats handled for you
    return 2 * x.numel() * x.element_size() * 1e-9 / (ms * 1e-3)   # read + write


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(1823, 781, device="cuda", dtype=torch.float16)   # odd width on purpose
    ref = torch.softmax(x.float(), dim=-1).to(x.dtype)
    assert torch.allclose(softmax(x), ref, atol=1e-3, rtol=1e-3)
    print("best config for n_cols=781:", softmax_kernel.best_config)
    bench.run(print_data=True)

# Notes
# - The first call per new n_cols pays for tuning (1 config x several runs each).
#   If widths vary a lot, bucket the key (e.g. pass next_power_of_2(n_cols) as an
#   extra argument and key on that) so you tune once per bucket, not per width.
# - Very wide rows: once BLOCK_SIZE reaches a few thousand elements per program,
#   the row stops fitting in registers (spills show up in the compiled kernel's
#   n_spills). Switch to a looped kernel: an online max/sum pass over column tiles,
#   then a normalise pass. There BLOCK_SIZE is a true tile size you can autotune
#   (e.g. 1024/2048/4096), together with num_warps and num_stages.
# - Many short rows: process several rows per program (or a persistent grid of
#   ~num_SMs programs looping over rows, as in the current Triton tutorial). That
#   amortises launch and scheduling costs.
