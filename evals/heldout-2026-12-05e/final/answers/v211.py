#!/usr/bin/env python3
"""Preflight + launch line: TE CUDA graphs with EP A2A overlap and delayed wgrad (DeepSeek-style MoE).

What Megatron-LM / MCore require for this combination (megatron-core 0.19 spelling):

* Scope: with overlap_moe_expert_parallel_comm=True the TE impl may graph only
  attn, moe_router, moe_preprocess. TransformerConfig asserts
  "CUDA graph scope on moe and mlp is not supported with overlap_moe_expert_parallel_comm".
  (No `moe`, no `mlp`, and no empty list = whole layer.)
* delay_wgrad_compute with graphed attn (or graphed moe_router when shared experts are not
  overlapped, which EP overlap forces off) needs Transformer Engine >= 2.12 (TransformerConfig
  alone asks >= 2.10; Megatron-LM's arguments.py / Bridge's comm-overlap config ask 2.12), and
  gradient_accumulation_fusion=True: the delayed wgrad must accumulate into the static
  main_grad buffers the graph recorded; the unfused path allocates fresh grads each step.
* No attention bias when attn is graphed: add_bias_linear=False and add_qkv_bias=False.
* TE RNG tracker on.
* moe_preprocess is rejected with the alltoall dispatcher when a capacity factor or
  moe_router_padding_for_fp8 is set (DtoH sync in preprocess): keep it dropless.

Known issue to watch: Megatron-LM#5966 reports grad norm going to NaN after ~80 iterations with
TE attn graphs + EP overlap. Log grad norm; if it diverges, bisect by removing graph modules
(attn first), then all graph flags.
"""
import sys

from packaging.version import Version

CFG = dict(
    # EP overlap + delayed wgrad (what you already have)
    overlap_moe_expert_parallel_comm=True,
    delay_wgrad_compute=True,
    moe_token_dispatcher_type="alltoall",      # or "flex"; EP overlap needs one of these
    moe_shared_expert_overlap=False,           # must be off with EP overlap
    moe_expert_capacity_factor=None,           # dropless
    moe_router_padding_for_fp8=False,
    recompute_granularity=None,                # no full recompute with EP overlap
    bf16=True,
    # graph prerequisites for delayed wgrad
    gradient_accumulation_fusion=True,
    add_bias_linear=False,
    add_qkv_bias=False,
    # graphs
    cuda_graph_impl="transformer_engine",
    cuda_graph_modules=["attn", "moe_router", "moe_preprocess"],
    cuda_graph_warmup_steps=3,
    use_te_rng_tracker=True,
)


def preflight(cfg):
    errs = []
    bad = {"moe", "mlp"} & set(cfg["cuda_graph_modules"])
    if cfg["overlap_moe_expert_parallel_comm"] and (bad or not cfg["cuda_graph_modules"]):
        errs.append(f"EP overlap: drop {sorted(bad) or 'whole-layer scope'}; use attn/moe_router/moe_preprocess")
    if "moe_preprocess" in cfg["cuda_graph_modules"] and "moe_router" not in cfg["cuda_graph_modules"]:
        errs.append("moe_preprocess needs moe_router")
    if cfg["delay_wgrad_compute"]:
        try:
            import transformer_engine as te
            if Version(te.__version__.split("+")[0]) < Version("2.12.0"):
                errs.append(f"TE {te.__version__} < 2.12.0 for delayed wgrad inside CUDA graphs")
        except ImportError:
            errs.append("Transformer Engine not installed")
        if not cfg["gradient_accumulation_fusion"]:
            errs.append("gradient_accumulation_fusion must be True (static main_grad)")
        if "attn" in cfg["cuda_graph_modules"] and (cfg["add_bias_linear"] or cfg["add_qkv_bias"]):
            errs.append("attention bias not supported with graphed attn + delayed wgrad")
    if not cfg["use_te_rng_tracker"]:
        errs.append("use_te_rng_tracker must be True")
    return errs


if __name__ == "__main__":
    problems = preflight(CFG)
    for p in problems:
        print("PREFLIGHT:", p, file=sys.stderr)
    if problems:
        sys.exit(1)
    # Megatron-LM launch (gradient accumulation fusion is on by default: just don't pass
    # --no-gradient-accumulation-fusion). On megatron-core 0.16-0.17 replace
    # --cuda-graph-modules with --cuda-graph-scope.
    print(
        "torchrun --nproc-per-node 8 pretrain_gpt.py "
        "--overlap-moe-expert-parallel-comm --delay-wgrad-compute "
        "--moe-token-dispatcher-type alltoall --disable-bias-linear "
        "--cuda-graph-impl transformer_engine "
        "--cuda-graph-modules attn moe_router moe_preprocess "
        "--te-rng-tracker --bf16 <model/parallel args>"
    )
