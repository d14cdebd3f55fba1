# recipes/llama31_8b_cudagraph.py  — patch on top of the stock 8B pretrain recipe
from megatron.bridge.recipes.llama import llama31_8b_pretrain_config


def llama31_8b_cudagraph_config(**kwargs):
    cfg = llama31_8b_pretrain_config(**kwargs)

    # --- CUDA graphs (Transformer Engine, per-layer) ---
    cfg.model.cuda_graph_impl = "transformer_engine"
    # set both spellings so the recipe keeps working on older and newer images
    cfg.model.cuda_graph_scope = ["attn"]
    cfg.model.cuda_graph_modules = ["attn"]
    cfg.model.cuda_graph_warmup_steps = 3

    # TE graphs need the TE RNG tracker
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # static shapes: seq 8192, MBS 1 — do not enable variable seq len
    cfg.model.seq_length = 8192
    cfg.train.micro_batch_size = 1
    return cfg

# Profile eager first (nsys) to confirm host gaps; then compare post-capture
# iterations (skip the first few after warmup) against eager.
