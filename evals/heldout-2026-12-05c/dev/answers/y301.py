import marimo

__generated_with = "0.10.9"
app = marimo.App(width="medium")


@app.cell
def _():
    import marimo as mo
    import torch
    import triton
    import triton.language as tl
    return mo, tl, torch, triton


@app.cell
def _(mo):
    mo.md(
        r"""
        # Fused softmax: choosing `BLOCK_SIZE` / `num_warps` with `@triton.autotune`

        * **One program per row.** Softmax rows are independent, so the grid is `(n_rows,)` and each program
          loads its row, subtracts the max, exponentiates, and normalises, all on-chip. That is one read
          and one write of the row to DRAM, instead of the ~5 passes eager PyTorch makes.
        * **`BLOCK_SIZE`** must be a power of two (`tl.arange` requirement). The tail beyond `n_cols` is masked
          and loaded as `-inf`, so it contributes `exp(-inf) = 0` to the sum.
        * **Let the autotuner pick.** Rather than hand-deriving `BLOCK_SIZE` and `num_warps`, give
          `@triton.autotune` a grid of `triton.Config`s and key it on `n_cols`. Triton benchmarks each config
          the first time it sees a new row length and caches the winner.
        * **`num_warps`**: more warps spread the row over more threads. Larger blocks want more warps
          (4 → 8 → 16). `num_stages` only matters a little for this kernel.
        * Benchmark with `triton.testing.do_bench` and report GB/s, since softmax is bandwidth-bound.
        """
    )
    return


@app.cell
def _(tl, torch, triton):
    def _configs():
        cfgs = []
        for bs in (256, 512, 1024, 2048):
            for w in (2, 4, 8, 16):
                if w * 32 > bs:  # at least one element per thread
                    continue
                cfgs.append(triton.Config({"BLOCK_SIZE": bs}, num_warps=w, num_stages=2))
        return cfgs

    @triton.autotune(configs=_configs(), key=["n_cols"])
    @triton.jit
    def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK_SIZE: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
        x = x - tl.max(x, axis=0)
        num = tl.exp(x)
        y = num / tl.sum(num, axis=0)
        tl.store(out_ptr + row * out_stride + cols, y, mask=mask)

    def softmax(x):
        n_rows, n_cols = x.shape
        y = torch.empty_like(x)
        softmax_kernel[(n_rows,)](y, x, x.stride(0), y.stride(0), n_cols)
        return y

    return softmax, softmax_kernel


@app.cell
def _(softmax, torch):
    # correctness on an irregular shape (exercises the masking)
    torch.manual_seed(0)
    _x = torch.randn(1823, 200, device="cuda")
    torch.testing.assert_close(softmax(_x), torch.softmax(_x, dim=-1))
    "ok"
    return


@app.cell
def _(mo, softmax, softmax_kernel, torch, triton):
    rows = []
    for n in (128, 256, 512, 768, 1024, 2048, 4096, 8192):
        x = torch.randn(4096, n, device="cuda")
        ms_t = triton.testing.do_bench(lambda: softmax(x))
        ms_ref = triton.testing.do_bench(lambda: torch.softmax(x, dim=-1))
        gbps = lambda ms: 2 * x.numel() * x.element_size() * 1e-9 / (ms * 1e-3)
        rows.append({
            "n_cols": n,
            "best config": str(softmax_kernel.best_config),
            "triton GB/s": round(gbps(ms_t)),
            "torch GB/s": round(gbps(ms_ref)),
        })
    mo.ui.table(rows)
    return


@app.cell
def _(mo):
    mo.md(
        r"""
        **Reading the table.** For short rows the autotuner usually lands on a small block with 2–4 warps.
        For rows in the thousands it moves to 1024–2048 with 8–16 warps. If the autotune pass itself is too
        slow (many distinct `n_cols`), bucket `n_cols` before launching, or prune configs with
        `prune_configs_by`. Set `TRITON_PRINT_AUTOTUNING=1` to log which config won for each key.
        """
    )
    return


if __name__ == "__main__":
    app.run()
