# compile_tuning.py: how I'd set up torch.compile for a model that keeps recompiling.
#
# Step 0: find out what's recompiling. Run once with
#     TORCH_LOGS="recompiles" python train.py
# Every recompile prints the guard that failed (usually a size mismatch on the batch or
# sequence dim, or a Python int/float argument whose value changed).

import torch
import torch._dynamo


def build_compiled(model: torch.nn.Module) -> torch.nn.Module:
    # dynamic=False tells Dynamo not to install shape guards on the inputs. Without size
    # guards there is nothing to fail when the batch/seq length changes, so the compiled
    # graph is reused for every shape and the "recompiles every few steps" pattern goes
    # away. (dynamic=True would instead try to generate symbolic-shape kernels, which are
    # slower and still recompile on specialization.)
    #
    # mode="reduce-overhead" adds CUDA graphs on top, which removes most of the Python /
    # launch overhead. Good default for training loops with small-to-medium batches.
    return torch.compile(model, mode="reduce-overhead", dynamic=False)


# Scalars: don't pass changing Python numbers (step, lr, temperature...) into forward().
# Dynamo guards on their values. Either pass a 0-d tensor or keep them outside the model.
#
#   bad:  out = model(x, step=i)
#   good: out = model(x, step=torch.tensor(i, device=x.device))


# Graph breaks: find them with
#     TORCH_LOGS="graph_breaks" python train.py
# or make them hard errors while debugging:
#     torch.compile(model, fullgraph=True)


# Only if recompiles are legitimately bounded (e.g. 3-4 padded bucket lengths), raise the
# per-frame limit so Dynamo doesn't fall back to eager after 8 recompiles:
torch._dynamo.config.recompile_limit = 16   # cache_size_limit on older PyTorch


# Modes, for reference:
#   "default"                    - balanced compile time / speed
#   "reduce-overhead"            - + CUDA graphs, lower launch overhead, a bit more memory
#   "max-autotune"               - autotunes matmul kernels, long compile, + CUDA graphs
#   "max-autotune-no-cudagraphs" - autotune without graphs


def benchmark(model, batches, warmup=5):
    # Exclude compilation from timing.
    for b in batches[:warmup]:
        model(b)
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for b in batches[warmup:]:
        model(b)
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / max(1, len(batches) - warmup)
