"""A/B harness: eager vs TE-scoped CUDA graphs for Llama 3.1 8B (Megatron Bridge, mcore 0.19).

Usage:
    torchrun --nproc-per-node 8 ab_cuda_graphs.py --mode eager  > eager.log
    torchrun --nproc-per-node 8 ab_cuda_graphs.py --mode graphs > graphs.log
    python ab_cuda_graphs.py --compare eager.log graphs.log

Recommendation baked in below: Transformer Engine scoped graphs, attention first
(["attn"]), then try ["attn", "mlp"] as a second A/B. Keep seq_length / MBS static.
"""
import argparse
import re
import statistics
import sys

TRAIN_ITERS = 20


def build_config(mode: str):
    from megatron.bridge.recipes.llama import llama31_8b_pretrain_config

    cfg = llama31_8b_pretrain_config()
    cfg.model.tensor_model_parallel_size = 1
    cfg.model.pipeline_model_parallel_size = 1
    cfg.model.seq_length = 8192
    cfg.dataset.seq_length = 8192
    cfg.train.micro_batch_size = 1
    cfg.train.train_iters = TRAIN_ITERS
    cfg.logger.log_interval = 1

    if mode == "graphs":
        cfg.model.cuda_graph_impl = "transformer_engine"
        cfg.model.cuda_graph_scope = None          # recipe default "full" is the deprecated alias
        cfg.model.cuda_graph_modules = ["attn"]    # widen to ["attn", "mlp"] in a second run
        cfg.model.cuda_graph_warmup_steps = 3
        cfg.model.use_te_rng_tracker = True
        cfg.rng.te_rng_tracker = True
    return cfg


def run(mode: str):
    from megatron.bridge.training.gpt_step import forward_step
    from megatron.bridge.training.pretrain import pretrain

    pretrain(build_config(mode), forward_step)


ITER_RE = re.compile(r"iteration\s+(\d+)/.*?elapsed time per iteration \(ms\):\s*([\d.]+)")


def step_times(path):
    times = {}
    with open(path) as f:
        for line in f:
            m = ITER_RE.search(line)
            if m:
                times[int(m.group(1))] = float(m.group(2))
    return times


def compare(eager_log, graph_log):
    eager, graph = step_times(eager_log), step_times(graph_log)
    # Same window for both runs (iterations 1..TRAIN_ITERS), so the comparison is
    # apples-to-apples and the one-time capture cost is amortized into the graph number.
    window = range(1, TRAIN_ITERS + 1)
    e = statistics.mean(eager[i] for i in window if i in eager)
    g = statistics.mean(graph[i] for i in window if i in graph)
    print(f"eager  mean step: {e:8.1f} ms")
    print(f"graphs mean step: {g:8.1f} ms")
    print(f"speedup: {e / g:5.3f}x  ({(1 - g / e) * 100:+.1f}% step time)")
    if g >= e:
        print("No win from CUDA graphs on this shape -> keep eager.")


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=["eager", "graphs"])
    p.add_argument("--compare", nargs=2, metavar=("EAGER_LOG", "GRAPH_LOG"))
    a = p.parse_args()
    if a.compare:
        compare(*a.compare)
    elif a.mode:
        run(a.mode)
    else:
        sys.exit("pass --mode or --compare")
