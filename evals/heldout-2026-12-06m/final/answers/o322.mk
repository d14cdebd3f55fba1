# Makefile — "do CUDA graphs speed up my small GPT on one H200?"
#
# Uses the skill's harness: eager vs graph on the SAME config, eager warmup and the
# capture iteration excluded, several interleaved trials of repeated timed
# iterations, median step time with bootstrap confidence intervals, peak memory.
#
#   make plan      # dry run: what will be measured (no GPU)
#   make precheck  # is the eager run launch-bound at all?
#   make bench     # the A/B itself
#   make report    # re-render table/plot from the results JSON
#
# Read the result by the speedup's confidence interval: lower bound > 1.0 means a
# real gain; an interval straddling 1.0 means "no measurable difference" — don't
# turn graphs on for that. Never judge from a single iteration, and never include
# the capture step (it is much slower than steady state).

CONFIG  ?= train_small_gpt.sh          # your Megatron-LM launch script / flags, or Bridge YAML/recipe
OUT     ?= bench-out
NAME    ?= small-gpt-h200
ST      ?= skill-tools

.PHONY: plan precheck bench bench-te report

plan:
	$(ST) bench --config $(CONFIG) --nproc 1 --gpu-type h200 --dry-run

# Profiles a few eager steps under torch.profiler and predicts whether graphs pay off
# (host-launch gaps vs GPU-busy time), then runs a short checking A/B.
precheck:
	$(ST) precheck --config $(CONFIG) --gpu-type h200 --out precheck-out

# Variants for a dense GPT: eager, full_iteration and te:attn+mlp, on your config's
# own layer shape (at most 4 layers per run by default, --layers to change; whole-model
# numbers are projected). 30 timed steps per trial, 3 eager warmup steps before
# capture, 3 interleaved trials per variant.
bench:
	$(ST) bench --config $(CONFIG) --nproc 1 --gpu-type h200 \
	    --steps 30 --warmup 3 --trials 3 --out $(OUT) --name $(NAME)

# Narrower alternative if full_iteration is ruled out for your setup
bench-te:
	$(ST) bench --config $(CONFIG) --nproc 1 --gpu-type h200 \
	    --variants eager,te:attn+mlp --steps 30 --trials 3 --out $(OUT) --name $(NAME)-te

report:
	$(ST) bench --render $(OUT)/$(NAME).json

# Notes
# - The harness already adds what each graph variant needs (e.g. --te-rng-tracker, and
#   --no-check-for-nan-in-loss-and-grad for full_iteration, which Megatron-LM asserts).
# - If your PyTorch lacks torch.autograd.graph.set_override_stale_capture_stream,
#   full_iteration capture with MCore DDP can fail on the default stream; the harness's
#   --capture-stream auto picks MCore's shared capture stream in that case.
# - Memory: graph pools stay resident; the results include peak memory per variant.
