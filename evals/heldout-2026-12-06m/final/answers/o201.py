# Packed LoRA SFT + TE attn CUDA graphs (Bridge >= 0.6, MCore >= 0.18)
#
# Why you hit "CUDA graph accepts only Tensor inputs. inference_context and
# packed_seq_params are excluded from input list.":
#   TE make_graphed_callables() can only take tensors as graph inputs. With
#   packed_sequence=True (THD) every layer forward gets a PackedSeqParams
#   dataclass, and its cu_seqlens change length/values per micro-batch, so the
#   captured attention graph would replay stale boundaries.
#
# The fix on recent Bridge is to make the packed layout static: offline packing
# with padded cu_seqlens. Bridge then feeds fixed-shape boundaries into the
# graphed attention and the assert goes away.

from megatron.bridge.data.packing.config import PackedSequenceSpecs


def packed_lora_with_attn_graphs(cfg):
    """Apply on top of your existing LoRA SFT recipe config."""
    seq_len = cfg.dataset.seq_length

    # --- data: offline packing with a static boundary layout -------------
    cfg.dataset.enable_offline_packing = True
    cfg.dataset.offline_packing_specs = PackedSequenceSpecs(
        packed_sequence_size=seq_len,
        pad_cu_seqlens=True,   # fixed-size cu_seqlens -> graph-safe
        pad_seq_to_mult=1,     # use 2*CP if context_parallel_size > 1
    )

    # --- model: TE-scoped graph on attention only -------------------------
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_modules = ["attn"]
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg


# Notes
# - Energon native sequence packing (packing_buffer_size set) is rejected with
#   CUDA graphs, so stay on the offline-packed parquet path.
# - Re-run eager vs graph on the packed path itself; a green pretrain A/B
#   does not carry over to THD SFT.
# - If you cannot upgrade, cuda_graph_impl="none" for packed SFT is the safe
#   fallback.
