"""TransformerConfig overrides: DeepSeek-style MoE + EP A2A overlap + delayed wgrad
+ TE-scoped CUDA graphs.  megatron-core 0.18 / 0.19 spelling (cuda_graph_modules).
On 0.16 / 0.17 use cuda_graph_scope=[...] with the same values.

Rules this encodes (all enforced by MCore / validate_args):
  * overlap_moe_expert_parallel_comm + transformer_engine graphs:
      "CUDA graph scope on moe and mlp is not supported with
       overlap_moe_expert_parallel_comm"  -> only attn, moe_router, moe_preprocess
  * moe_preprocess needs moe_router in the scope, and with the alltoall dispatcher it is
    rejected if moe_expert_capacity_factor or moe_router_padding_for_fp8 is set
    (DtoH sync in preprocess)
  * delay_wgrad_compute + partial graphs that include attn:
      TE >= 2.12 (MCore config itself checks >= 2.10), gradient_accumulation_fusion=True
      (wgrad must land in the static main_grad buffer), and no attention bias
  * CUDA graphs need the TE RNG tracker
"""

moe_overlap_graph_overrides = dict(
    # --- parallelism / MoE -------------------------------------------------
    expert_model_parallel_size=8,          # overlap requires EP > 1
    pipeline_model_parallel_size=1,        # if PP > 1: set virtual_pipeline_model_parallel_size
    moe_token_dispatcher_type="alltoall",  # or "flex"; overlap rejects allgather
    moe_expert_capacity_factor=None,       # dropless; keeps moe_preprocess graphable
    moe_router_padding_for_fp8=False,
    moe_shared_expert_overlap=False,       # must be off with EP A2A overlap
    mtp_num_layers=None,                   # overlap allows at most one MTP layer
    bf16=True,                             # overlap needs bf16/fp16
    recompute_granularity=None,            # no full recompute / recompute_method with overlap

    # --- overlap + delayed wgrad ------------------------------------------
    overlap_moe_expert_parallel_comm=True,
    delay_wgrad_compute=True,              # requires overlap_moe_expert_parallel_comm
    gradient_accumulation_fusion=True,     # MCore default is False -> set it explicitly

    # --- no attention bias (graph + delayed wgrad) ------------------------
    add_bias_linear=False,
    add_qkv_bias=False,

    # --- CUDA graphs -------------------------------------------------------
    cuda_graph_impl="transformer_engine",
    cuda_graph_modules=["attn", "moe_router", "moe_preprocess"],   # never "moe" / "mlp" here
    cuda_graph_warmup_steps=3,
    use_te_rng_tracker=True,
)

# Environment / versions to check before launching:
#   - Transformer Engine >= 2.12, torch >= 2.6 (A2A overlap hang guard)
#   - Megatron-LM CLI equivalents: --overlap-moe-expert-parallel-comm --delay-wgrad-compute
#     --cuda-graph-impl transformer_engine --cuda-graph-modules attn moe_router moe_preprocess
#     --disable-bias-linear --te-rng-tracker  (and do NOT pass --no-gradient-accumulation-fusion)
#
# Validation plan:
#   1. Eager run with the same overlap/delay_wgrad settings -> baseline loss + grad norm.
#   2. Graph run; compare replay-step time after capture, and watch grad norm for ~100+ iters.
#      A NaN grad norm after ~80 iterations has been reported for TE attn graphs + EP overlap
#      (Megatron-LM#5966). If you see it, bisect by dropping the graph flags first
#      (cuda_graph_impl="none"), then delay_wgrad_compute.
