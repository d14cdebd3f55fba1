# Snakefile: does CUDA-graph capture speed up my small GPT on one H200? (eager vs graphs, with stats)
#
#   snakemake --cores 1 -s Snakefile report
#
# Two measurements, one GPU, run one after the other (never concurrently on the same card):
#   1. precheck : profile eager steps under torch.profiler and predict whether the step is
#                 launch-bound (host/launch gaps between kernels). If it isn't, graphs can't help.
#   2. bench    : the A/B itself. skill-tools bench runs eager and each graph variant on the same
#                 config, interleaving trials, drops the warmup steps and the capture step, times the
#                 remaining steps, and reports median step time per variant with bootstrap 95% CIs,
#                 the speedup vs eager with its CI, max allocated memory and the loss delta vs eager.
# Decide from the speedup CI: if its lower bound is above 1.0 the graphs help; if the CI straddles
# 1.0, they don't (for this config), whatever one fast iteration showed.

CONFIG = "configs/gpt_small.yaml"     # your training config (Megatron-LM flags / Bridge YAML work too)
OUT = "cg-eval"

rule report:
    input:
        pre=f"{OUT}/precheck/precheck.json",
        ab=f"{OUT}/bench/bench.json",
    shell:
        r"""
        python - <<'PY'
import json
pre = json.load(open("{input.pre}"))
ab = json.load(open("{input.ab}"))
print("precheck:", json.dumps(pre, indent=1)[:1500])
for v in ab.get("variants", []):
    print(v.get("name"), "captured", v.get("captured"), "replayed", v.get("replayed"),
          "step_ms", v.get("step_ms"), "speedup", v.get("speedup_vs_eager"),
          "loss_max_abs_delta", v.get("loss_max_abs_delta"), "error", v.get("error_class"))
PY
        """

rule precheck:
    output:
        f"{OUT}/precheck/precheck.json",
    shell:
        # eager profile of a dense GPT of comparable size + a short checking A/B
        "skill-tools precheck --workload dense --size small --out {OUT}/precheck --json > {output}"

rule bench:
    input:
        cfg=CONFIG,
        pre=f"{OUT}/precheck/precheck.json",   # run after precheck: one GPU, no overlap
    output:
        f"{OUT}/bench/bench.json",
    shell:
        # --config: measure *this* model's layer shape; defaults give warmup 3, 30 timed steps x 2 trials.
        # More steps/trials tighten the CI on a noisy box.
        "skill-tools bench --config {input.cfg} --steps 50 --trials 3 --warmup 3 "
        "--out {OUT}/bench --json > {output}"

# Reading the result:
#  - captured/replayed must both be true for a graph variant, else its time is eager time.
#  - the capture step is not in step_ms; never compare the first graphed iteration.
#  - loss_max_abs_delta above ~1e-3 vs eager (same seed) means the graph changed the math: investigate
#    before trusting any speedup.
#  - exit code 1 from bench = findings (a variant failed or regressed); read error_class.
