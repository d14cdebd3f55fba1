# Yes - packed THD sequences and TE attn graphs can coexist, but only once the
# packed batch has a static layout. The assert fires because TE's
# make_graphed_callables only records Tensor arguments: PackedSeqParams is a
# dataclass, and its cu_seqlens change length every pack, so the attention
# graph would be replayed against boundaries it was never captured with.
#
# Fix: pack offline and pad cu_seqlens to a constant size, so every microbatch
# the graph sees has the same shapes. (Energon's native packing has no such mode:
# there you must run eager.) Bring this up as its own run and compare loss with
# the eager packed SFT run before trusting it - pretraining results don't carry over.

from megatron.bridge.training.config import ConfigContainer


def lora_sft_packed_with_graphs(cfg: ConfigContainer) -> ConfigContainer:
    """Patch an SFT/LoRA recipe (built with packed_sequence=True) for TE attn graphs."""
    # --- packing: offline, fixed-width metadata -------------------------------
    cfg.dataset.enable_offline_packing = True
    cfg.dataset.offline_packing_specs.pad_cu_seqlens = True  # constant-length cu_seqlens
    cfg.train.micro_batch_size = 1  # offline packs are one row per microbatch

    # --- graphs: TE per-layer, attention only ---------------------------------
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = ["attn"]       # megatron-core 0.16-0.17 spelling
    # on megatron-core 0.18+ use instead:
    #   cfg.model.cuda_graph_scope = None
    #   cfg.model.cuda_graph_modules = ["attn"]
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg


# If you would rather not touch the data pipeline, the other valid answer is
# simply cfg.model.cuda_graph_impl = "none" for this packed SFT job.
