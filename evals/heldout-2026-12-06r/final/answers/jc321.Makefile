# Eager vs CUDA-graph A/B on one H200 for the small GPT config.
# bench runs both variants on the same config, excludes warmup + capture iterations,
# repeats timed iterations and reports median step time with bootstrap 95% CIs + memory.
# Judge by speedup_vs_eager CI: if it straddles 1.0, graphs don't help here.
CFG ?= configs/small_gpt.yaml

precheck:   ## eager profile: is this run launch-bound at all?
	skill-tools precheck --workload dense --size small --json

bench:      ## the A/B itself
	skill-tools bench --json --config $(CFG)

.PHONY: precheck bench
