# decode benchmark, megatron-core 0.17
CKPT ?= /lustre/ckpts/gpt-8b

.PHONY: decode-graphs
decode-graphs:  ## whole-block decode CUDA graphs (0.17 spelling)
	python examples/inference/gpt/gpt_dynamic_inference.py \
		--load $(CKPT) \
		--transformer-impl transformer_engine \
		--cuda-graph-impl transformer_engine \
		--cuda-graph-scope full_iteration_inference \
		--num-tokens-to-generate 128

# On 0.18+ replace the scope flag with --inference-cuda-graph-scope block.
