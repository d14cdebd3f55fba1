# policy/megatron/cuda_graphs_offload.rego
#
# Admission rule for our training-config gate (OPA / conftest). It answers the
# question "activation CPU offloading + TE CUDA graphs on attn: is that OK?"
#
#   SHORT ANSWER: no. Pick one of the two features.
#
#   Why: megatron-core's TransformerConfig raises
#       ValueError("CUDA graphs not supported with CPU offloading.")
#   - 0.16.x / 0.17.x: for every cuda_graph_impl != "none" (local and transformer_engine).
#   - 0.18+: still for "local" and "transformer_engine"; only cuda_graph_impl="full_iteration"
#     gets past that particular check.
#   Megatron Bridge's CUDA-graph guide also lists CPU offloading as incompatible.
#   A TE-scoped attn graph with cpu_offloading=True therefore never reaches step 1.
#
#   What to do instead (either is fine):
#     (a) keep the graphs, drop activation offloading:
#           model.cpu_offloading = false
#         and recover memory with selective recompute
#           model.recompute_granularity = "selective"
#         or optimizer CPU offload (optimizer state to host; activations untouched),
#     (b) keep offloading, drop the graphs:
#           model.cuda_graph_impl = "none"
#   Do NOT try to get both by switching to full-iteration graphs in order to keep per-layer
#   offloading. That is a different feature with its own constraints (NaN checks off, static
#   everything), and Bridge documents offloading + graphs as unsupported.
#
# Usage: conftest test --policy policy/ run_config.json

package megatron.cuda_graphs

import rego.v1

per_layer_impls := {"local", "transformer_engine"}

graphs_on if {
	input.model.cuda_graph_impl
	input.model.cuda_graph_impl != "none"
}

offloading_on if input.model.cpu_offloading == true

deny contains msg if {
	graphs_on
	offloading_on
	input.model.cuda_graph_impl in per_layer_impls
	msg := sprintf(
		"cpu_offloading=true (num_layers=%v) with cuda_graph_impl=%q: MCore raises 'CUDA graphs not supported with CPU offloading.' Set model.cpu_offloading=false (use selective recompute / optimizer CPU offload) or model.cuda_graph_impl=\"none\".",
		[object.get(input.model, "cpu_offloading_num_layers", "?"), input.model.cuda_graph_impl],
	)
}

# megatron-core 0.16/0.17 reject offloading with ANY graph impl.
deny contains msg if {
	graphs_on
	offloading_on
	startswith(object.get(input, "mcore_version", ""), "0.16")
	msg := "megatron-core 0.16: CPU offloading is rejected with every cuda_graph_impl."
}

deny contains msg if {
	graphs_on
	offloading_on
	startswith(object.get(input, "mcore_version", ""), "0.17")
	msg := "megatron-core 0.17: CPU offloading is rejected with every cuda_graph_impl."
}

# Graphs need the TE RNG tracker in both places.
deny contains msg if {
	graphs_on
	not input.model.use_te_rng_tracker
	msg := "CUDA graphs need model.use_te_rng_tracker=true and rng.te_rng_tracker=true."
}
