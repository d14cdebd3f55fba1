"""Llama 3.1 8B on 8xH100 (TP=1, PP=1, seq 8192, MBS 1) with TE-scoped CUDA graphs.

megatron-core 0.19 + Megatron Bridge.

Before enabling graphs, profile a few eager steps (nsys, cfg.profiling.use_nsys_profiler=True,
steps 10-12) and confirm there are host/launch gaps between kernels. If the timeline is dense
the run is compute-bound and graphs will not help.

Recommended starting point: transformer_engine impl, attention only; then A/B attn+mlp.
"""

import re
import statistics
import sys

from megatron.bridge.recipes.llama import llama31_8b_pretrain_config
from megatron.bridge.training.gpt_step import forward_step
from megatron.bridge.training.pretrain import pretrain


def build_config(graphs: bool):
    cfg = llama31_8b_pretrain_config()
    cfg.model.tensor_model_parallel_size = 1
    cfg.model.pipeline_model_parallel_size = 1

    # static shapes: graphs replay the captured shapes only
    cfg.dataset.seq_length = 8192
    cfg.model.seq_length = 8192
    cfg.train.micro_batch_size = 1
    cfg.train.train_iters = 50
    cfg.logger.log_interval = 1

    if graphs:
        cfg.model.cuda_graph_impl = "transformer_engine"
        cfg.model.cuda_graph_scope = None          # recipe ships "full"; clear before setting modules (0.18+)
        cfg.model.cuda_graph_modules = ["attn"]    # widen to ["attn", "mlp"] after an A/B
        cfg.model.cuda_graph_warmup_steps = 3
        cfg.model.use_te_rng_tracker = True        # graph-safe RNG, required
        cfg.rng.te_rng_tracker = True
    return cfg


ITER_RE = re.compile(r"iteration\s+(\d+)/.*?elapsed time per iteration \(ms\): ([\d.]+)")


def mean_step_ms(log_path: str) -> float:
    """Average step time over the whole run.

    Average from iteration 1 for both runs: the capture cost is a real cost of
    using graphs, and over 50 iterations it amortizes, so this is the fair
    apples-to-apples number to compare eager vs graphed.
    """
    times = []
    with open(log_path) as f:
        for line in f:
            m = ITER_RE.search(line)
            if m:
                times.append(float(m.group(2)))
    return statistics.mean(times)


if __name__ == "__main__":
    if sys.argv[1] == "compare":
        eager, graph = mean_step_ms(sys.argv[2]), mean_step_ms(sys.argv[3])
        print(f"eager {eager:.1f} ms  graph {graph:.1f} ms  speedup {eager / graph:.3f}x")
    else:
        pretrain(build_config(graphs=sys.argv[1] == "graphs"), forward_step)

# usage:
#   torchrun --nproc-per-node 8 this.py eager  2>&1 | tee eager.log
#   torchrun --nproc-per-node 8 this.py graphs 2>&1 | tee graph.log
#   python this.py compare eager.log graph.log
