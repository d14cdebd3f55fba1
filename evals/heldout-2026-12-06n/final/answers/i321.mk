# Makefile — "do CUDA graphs speed up my small GPT?" on one H200
# Usage: make ab CONFIG=configs/small_gpt.yaml
#
# Rules of the game (why not just read the log):
#  * warmup and the capture iteration are excluded — capture is one expensive iteration and would
#    make graphs look slower; only replayed steady-state steps are timed
#  * eager and graph run the SAME config, seed and stack, many timed iterations each
#  * verdict = median step time + bootstrap 95% CI on the speedup. If the CI includes 1.0x,
#    you have no measurable speedup, whatever the point estimate says.
#  * peak memory is reported too (graph pools cost memory)

CONFIG ?= configs/small_gpt.yaml
OUT    ?= results

.PHONY: precheck ab all

# 1) Is this model launch-bound at all? Profiles an eager run (host gaps between kernels) and predicts payoff.
precheck:
	mkdir -p $(OUT)
	skill-tools precheck --workload dense --size small --json > $(OUT)/precheck.json

# 2) Matched A/B: eager vs graph variants on your config
ab:
	mkdir -p $(OUT)
	skill-tools bench --config $(CONFIG) --json > $(OUT)/bench.json
	@python3 -c "import json;d=json.load(open('$(OUT)/bench.json'));\
	[print(v.get('name'),v.get('captured'),v.get('replayed'),v.get('step_ms'),v.get('speedup_vs_eager')) for v in d['variants']]"

all: precheck ab

# Reading bench.json: for each variant check captured/replayed are true, then speedup_vs_eager and its CI,
# and loss_max_abs_delta (loss parity). A small, launch-bound GPT usually shows a clear win;
# if precheck says the step is GPU-busy, expect ~1.0x.
