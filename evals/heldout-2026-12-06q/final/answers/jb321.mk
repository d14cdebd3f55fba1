# Makefile -- "do CUDA graphs pay off for my small GPT config?" on one H200
#
#   make precheck   # is this kind of run launch-bound at all? (eager profile)
#   make bench      # matched eager vs graph A/B with statistics
#   make report     # the three numbers that decide it
#
# How the numbers are made (skill-tools bench): same config, same seed, eager and
# each graph variant run back to back on the same GPU; warmup iterations and the
# capture iteration are excluded, then many timed replay iterations per arm; it
# reports median step time with a bootstrap 95% CI on the speedup, plus peak
# memory and the max loss delta vs eager.
# Decide on the CI: lower bound > 1.0 -> real speedup; CI straddles 1.0 -> no
# measurable gain, leave cuda_graph_impl=none. One fast iteration proves nothing.

CONFIG ?= configs/my_small_gpt.yaml
OUT    ?= out

precheck:
	mkdir -p $(OUT)
	skill-tools precheck --workload dense --size small --json > $(OUT)/precheck.json
	jq '.' $(OUT)/precheck.json

bench:
	mkdir -p $(OUT)
	skill-tools bench --json --config $(CONFIG) > $(OUT)/bench.json

report: bench
	jq -r '.variants[] | [.captured, .replayed, .step_ms, .speedup_vs_eager, .loss_max_abs_delta, .error_class] | @tsv' $(OUT)/bench.json

.PHONY: precheck bench report
# Notes
#  - small GPT on an H200 is often launch-bound (short kernels), which is where
#    graphs help; precheck tells you before you spend time.
#  - check `captured` AND `replayed` are true for the graph arm, and
#    loss_max_abs_delta stays at bf16 noise; a fast arm with a loss drift is a bug,
#    not a win.
