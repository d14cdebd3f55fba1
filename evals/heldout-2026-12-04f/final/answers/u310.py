"""deepseek_ep_overlap_graphs.py

Wraps the stock DeepSeek recipe: EP all-to-all overlap + delayed wgrad + TE per-layer CUDA graphs.

Prerequisites this function enforces (each one is asserted somewhere in MCore / Megatron-LM /
Bridge when delay_wgrad_compute meets graphed attention or a graphed router with shared experts):
  * Transformer Engine >= 2.12 ("CUDA graph with delay_wgrad_compute requires TE version >= 2.12.0.")
  * gradient_accumulation_fusion=True: delayed wgrads must accumulate into the static main_grad
    buffers the graphs were captured against
  * no attention bias (add_bias_linear / add_qkv_bias off)
  * TE RNG tracker on, as for every graph
  * EP overlap rules: selective recompute only, "moe" not in recompute_modules,
    moe_shared_expert_overlap off

Graphed modules: with EP overlap the expert path (dispatch -> experts -> combine) is what the
overlap scheduler splits into chunks, so "moe" is out. We graph attention, the router and the
preprocess step on the MoE layers, and the dense MLP of DeepSeek's first dense layers, so that the
whole non-expert compute of every layer runs from graphs.
"""

from megatron.bridge.recipes.deepseek import deepseek_v3_pretrain_config
from megatron.bridge.utils.cuda_graph import set_cuda_graph_modules
import transformer_engine as te
from packaging.version import Version


def deepseek_ep_overlap_graphs_config(**kwargs):
    cfg = deepseek_v3_pretrain_config(**kwargs)

    assert Version(te.__version__.split("+")[0]) >= Version("2.12.0"), (
        "TE >= 2.12 is required for CUDA graphs with delay_wgrad_compute"
    )

    # EP A2A overlap + delayed wgrad
    cfg.model.overlap_moe_expert_parallel_comm = True
    cfg.model.delay_wgrad_compute = True
    cfg.model.moe_shared_expert_overlap = False

    # graph prerequisites for delayed wgrad
    cfg.model.gradient_accumulation_fusion = True
    cfg.model.add_bias_linear = False
    cfg.model.add_qkv_bias = False

    # recompute compatible with EP overlap and the graphs
    cfg.model.recompute_granularity = "selective"
    cfg.model.recompute_method = None
    cfg.model.recompute_num_layers = None
    cfg.model.recompute_modules = ["mla_up_proj", "moe_act", "layernorm"]

    # TE per-layer graphs (set_cuda_graph_modules writes cuda_graph_modules on 0.18+,
    # cuda_graph_scope on 0.16-0.17, and clears the other key)
    cfg.model.cuda_graph_impl = "transformer_engine"
    set_cuda_graph_modules(cfg.model, ["attn", "mlp", "moe_router", "moe_preprocess"])
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    return cfg


# After the first run: check peak memory after the capture step (EP overlap makes the TE helper
# capture per micro-batch even at PP=1) and keep an eye on grad norm; Megatron-LM#5966 reports a
# NaN after ~80 iterations with TE attn graphs + EP overlap. If that happens, bisect by removing
# "attn" from the modules first.
