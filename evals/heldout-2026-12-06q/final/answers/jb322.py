"""ab_graphs.py -- eager vs CUDA-graph step time for a small GPT on one H200.

(`skill-tools bench --json --config my_gpt.yaml` does a packaged version of this; the
script below is the same idea, spelled out so you can see what is measured.)

Method
  * same config / seed / data for both arms, run back to back on the same GPU
  * drop the warm-up iteration, time N steady-state iterations per arm
  * median step time per arm + bootstrap 95% CI on the speedup (eager / graph)
  * decide on the CI, not on one iteration: lower bound > 1.0 -> graphs help
Before this, `skill-tools precheck --workload dense --size small --json` (or an nsys
profile of eager) tells you whether the run is launch-bound at all.
"""
import statistics, random, subprocess, json, re, sys

CONFIG = sys.argv[1] if len(sys.argv) > 1 else "my_gpt.yaml"
ITERS = 60
WARMUP = 1      # first iteration does allocator/cuBLAS/NCCL init; everything after it is steady state
# graph arm uses the recipe default cuda_graph_warmup_steps=3

def run(arm_overrides):
    cmd = ["python", "pretrain_gpt_bridge.py", "--config", CONFIG,
           f"train.train_iters={ITERS}", "logger.log_interval=1", "model.seed=1234", *arm_overrides]
    log = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    ms = [float(m) for m in re.findall(r"elapsed time per iteration \(ms\): ([0-9.]+)", log)]
    return ms[WARMUP:]

def boot_ci(a, b, n=2000):
    r = [statistics.median(random.choices(a, k=len(a))) / statistics.median(random.choices(b, k=len(b)))
         for _ in range(n)]
    r.sort()
    return r[int(0.025 * n)], r[int(0.975 * n)]

eager = run(["model.cuda_graph_impl=none"])
graph = run(["model.cuda_graph_impl=full_iteration", "rerun_state_machine.check_for_nan_in_loss=False"])
lo, hi = boot_ci(eager, graph)
print(json.dumps({
    "eager_median_ms": statistics.median(eager),
    "graph_median_ms": statistics.median(graph),
    "speedup": statistics.median(eager) / statistics.median(graph),
    "speedup_ci95": [lo, hi],
}, indent=2))
