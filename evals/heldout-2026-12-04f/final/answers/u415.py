# %% [markdown]
# # Choosing BLOCK_SIZE / num_warps for a fused row-wise softmax, and autotuning it
#
# * **BLOCK_SIZE**: for a row-wise softmax, one program handles one row, so BLOCK_SIZE must
#   cover the whole row. `tl.arange` needs a power of two, so use
#   `triton.next_power_of_2(n_cols)` and mask the tail (`col < n_cols`, `other=-inf`).
#   Don't autotune BLOCK_SIZE here - it is dictated by the row length.
# * **num_warps**: more warps = more threads sharing one row. Rule of thumb: 4 for rows up to
#   ~2K elements, 8 up to ~4-8K, 16 beyond. This (and `num_stages`) is what you autotune.
# * **Autotune**: `@triton.autotune(configs=[triton.Config(...), ...], key=[...])` benchmarks
#   every config the first time it sees a new value of the `key` arguments and caches the
#   winner. Key on the problem size (`n_cols`, here also BLOCK_SIZE).
# * **Measure** with `triton.testing.do_bench` (it handles warmup + L2 flushing) and compare
#   to `torch.softmax` in GB/s, since softmax is memory-bound.

# %%
import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({}, num_warps=w, num_stages=s)
        for w in (2, 4, 8, 16)
        for s in (1, 2, 3)
    ],
    key=["n_cols", "BLOCK_SIZE"],
)
@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    step = tl.num_programs(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    # grid-stride over rows so a small grid still covers a tall matrix
    for r in range(row, n_rows, step):
        x = tl.load(in_ptr + r * in_row_stride + cols, mask=mask, other=-float("inf"))
        x = x - tl.max(x, axis=0)
        num = tl.exp(x)
        y = num / tl.sum(num, axis=0)
        tl.store(out_ptr + r * out_row_stride + cols, y, mask=mask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    # one program per row up to a cap; the kernel loops if there are more rows
    sm_count = torch.cuda.get_device_properties(x.device).multi_processor_count
    grid = (min(n_rows, sm_count * 8),)
    softmax_kernel[grid](y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE=BLOCK_SIZE)
    return y


# %% correctness on an awkward shape (exercises the mask)
torch.manual_seed(0)
x = torch.randn(1823, 781, device="cuda")
torch.testing.assert_close(softmax(x), torch.softmax(x, dim=1))
print("best config for n_cols=781:", softmax_kernel.best_config)

# %% benchmark
for n in (256, 1024, 4096, 8192):
    x = torch.randn(4096, n, device="cuda", dtype=torch.float16)
    ms_tri = triton.testing.do_bench(lambda: softmax(x))
    ms_ref = triton.testing.do_bench(lambda: torch.softmax(x, dim=-1))
    gbps = lambda ms: 2 * x.numel() * x.element_size() * 1e-9 / (ms * 1e-3)
    print(f"n_cols={n:5d}  triton {gbps(ms_tri):7.1f} GB/s   torch {gbps(ms_ref):7.1f} GB/s   "
          f"cfg={softmax_kernel.best_config}")

# %% [markdown]
# Notes
# * Very long rows (BLOCK_SIZE > ~32K fp32) spill registers; switch to an online-softmax
#   (two-pass or Welford-style) kernel that loops over column tiles, and then BLOCK_SIZE
#   becomes a real tuning knob (e.g. 1024/2048/4096) you can put in the autotune configs.
# * Autotuning reruns for every new `key` value; if n_cols varies a lot, bucket it, or the
#   first call per shape pays the tuning cost.
# * Set `TRITON_PRINT_AUTOTUNING=1` to see the timings of every config.
