version 1.0

## Does CUDA-graph capture speed up my small GPT training config on one H200?
##
## Method (what `skill-tools bench` does for you):
##   * eager and each graph variant are built from the SAME config (same model, batch,
##     seq length, seed), one after the other on the same GPU;
##   * warmup iterations and the capture iteration are excluded (the capture step does
##     warmup + capture + first replay and is many times slower; it's reported separately
##     as capture_step_ms);
##   * repeated timed iterations -> median step time with bootstrap 95 % CIs, speedup vs
##     eager with its own CI, loss delta vs eager, peak memory.
## Verdict rule: graphs help only if the speedup CI lies entirely above 1.0 (and
## loss_max_abs_delta stays at bf16 noise). A single fast iteration proves nothing.
##
## `precheck` profiles the eager step: if the GPU is mostly waiting on the host
## (launch-bound), graphs can pay; if kernels already fill the timeline, expect ~1.0x.

workflow cuda_graph_ab {
  input {
    File   gpt_config            # your Bridge YAML / Python recipe / Megatron-LM flags file
    String size = "small"        # precheck's proxy size closest to your model
  }
  call precheck { input: size = size }
  call bench    { input: cfg = gpt_config }
  output {
    File precheck_json = precheck.out
    File bench_json    = bench.out
  }
}

task precheck {
  input { String size }
  command <<<
    set -euo pipefail
    # eager profile -> host-gap share and a payoff prediction
    skill-tools precheck --workload dense --size ~{size} --json > precheck.json
  >>>
  output { File out = "precheck.json" }
  runtime { gpu: true; gpuCount: 1; gpuType: "nvidia-h200"; docker: "nvcr.io/nvidia/nemo:25.11" }
}

task bench {
  input { File cfg }
  command <<<
    set -euo pipefail
    # matched A/B: eager vs the graph variants for this config, warmup/capture excluded
    skill-tools bench --config ~{cfg} --json > bench.json
    python3 - <<'PY'
import json
d = json.load(open("bench.json"))
for v in d["variants"]:
    print(v.get("name"), "captured:", v.get("captured"), "replayed:", v.get("replayed"),
          "step_ms:", v.get("step_ms"), "speedup_vs_eager:", v.get("speedup_vs_eager"),
          "loss_max_abs_delta:", v.get("loss_max_abs_delta"), "error:", v.get("error_class"))
PY
  >>>
  output { File out = "bench.json" }
  runtime { gpu: true; gpuCount: 1; gpuType: "nvidia-h200"; docker: "nvcr.io/nvidia/nemo:25.11" }
}

## Reading bench.json
##   captured/replayed must both be true, otherwise the variant ran eagerly or failed
##   (error_class names the cause: e.g. a capture failure, not a slow graph).
##   speedup_vs_eager CI entirely > 1.0  -> keep that variant; pick the best CI, not the
##                                         best single number.
##   CI spans 1.0                        -> no measurable gain; leave cuda_graph_impl=none
##                                         unless precheck says you're launch-bound (then
##                                         look for host syncs / fallbacks).
##   loss_max_abs_delta >> 1e-3          -> investigate before using (note: an optimizer
##                                         graph uses capturable Adam; compare it against
##                                         eager+capturable Adam, not default Adam).
## Run it twice if the CIs are wide; host time drifts between invocations, so compare
## only variants measured side by side in the same bench run.
