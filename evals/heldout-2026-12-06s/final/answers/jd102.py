"""
Bring-up helper: Llama 3.1 8B, Megatron Bridge + megatron-core 0.19, 8x H100, TP=1 PP=1.

Recommendation: Transformer Engine per-layer CUDA graphs, starting with attention only
(widen to ["attn", "mlp"] after an A/B). Profile eager first (nsys) and only keep graphs
if the eager timeline shows launch gaps between kernels.

Run eager first:   python launch_cg.py --mode eager
Then graphs:       python launch_cg.py --mode graphs
Then compare:      python launch_cg.py --compare eager.log graphs.log
"""

import argparse
import re
import statistics

WARMUP_STEPS = 3


def build_config(use_graphs: bool):
    from megatron.bridge.recipes.llama import llama31_8b_pretrain_config

    cfg = llama31_8b_pretrain_config()
    cfg.model.tensor_model_parallel_size = 1
    cfg.model.pipeline_model_parallel_size = 1

    # Static shapes: graphs replay fixed buffers, so seq length and MBS must never change.
    cfg.model.seq_length = 8192
    cfg.dataset.seq_length = 8192
    cfg.train.micro_batch_size = 1

    if use_graphs:
        cfg.model.cuda_graph_impl = "transformer_engine"
        cfg.model.cuda_graph_scope = None        # recipe sets "full"; can't coexist with modules on 0.18+
        cfg.model.cuda_graph_modules = ["attn"]  # step 2 of the A/B: ["attn", "mlp"]
        cfg.model.cuda_graph_warmup_steps = WARMUP_STEPS
        # graph-safe RNG (required whenever graphs are on)
        cfg.model.use_te_rng_tracker = True
        cfg.rng.te_rng_tracker = True
    else:
        cfg.model.cuda_graph_impl = "none"
    return cfg


_ITER_RE = re.compile(r"iteration\s+(\d+)/.*?elapsed time per iteration \(ms\):\s*([\d.]+)")


def step_times(log_path):
    """Per-iteration elapsed times (ms), in order, from a Megatron/Bridge training log."""
    times = []
    with open(log_path) as f:
        for line in f:
            m = _ITER_RE.search(line)
            if m:
                times.append(float(m.group(2)))
    return times


def steady_state_mean(times, warmup=WARMUP_STEPS):
    # Iterations 1..warmup run eagerly while TE records the layer shapes; from iteration
    # warmup+1 on, every step replays the captured graphs. Drop only the warmup iterations
    # so the average covers all graphed steps.
    return statistics.mean(times[warmup:])


def compare(eager_log, graph_log):
    e = steady_state_mean(step_times(eager_log))
    g = steady_state_mean(step_times(graph_log))
    print(f"eager  : {e:8.1f} ms/iter")
    print(f"graphs : {g:8.1f} ms/iter")
    print(f"speedup: {e / g:5.3f}x  (keep graphs only if this is clearly > 1 and loss matches)")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=["eager", "graphs"])
    p.add_argument("--compare", nargs=2, metavar=("EAGER_LOG", "GRAPH_LOG"))
    a = p.parse_args()

    if a.compare:
        compare(*a.compare)
        return

    from megatron.bridge.training.gpt_step import forward_step
    from megatron.bridge.training.pretrain import pretrain

    cfg = build_config(use_graphs=(a.mode == "graphs"))
    cfg.train.train_iters = 50
    pretrain(cfg, forward_step)


if __name__ == "__main__":
    main()
