# Packed-sequence LoRA SFT + TE CUDA graphs on attention (Megatron Bridge v0.6)
#
# The assert you hit ("CUDA graph accepts only Tensor inputs. inference_context and
# packed_seq_params are excluded from input list.") happens because the THD batch carries
# PackedSeqParams, a non-Tensor dataclass whose cu_seqlens change length every step.
# TE graphs need static tensor shapes, so the fix is to make cu_seqlens fixed-size
# using Bridge's offline packing with padded boundaries.

from megatron.bridge.data.packing.config import PackedSequenceSpecs


def enable_packed_attn_graphs(cfg, seq_length: int = 4096):
    # --- data: offline packing with fixed-size cu_seqlens ---------------------------
    cfg.dataset.enable_offline_packing = True
    cfg.dataset.offline_packing_specs = PackedSequenceSpecs(
        packed_sequence_size=seq_length,
        # Pads cu_seqlens to a constant length and pads each packed bin out to
        # packed_sequence_size, so every micro-batch has the same token width.
        # Because this already fixes the shapes, you do NOT need
        # dataset_kwargs["pad_to_max_length"] on top of it -- leaving it off avoids
        # wasting compute on extra pad tokens.
        pad_cu_seqlens=True,
    )

    # --- model: TE per-layer graphs on attention (0.18+ spelling) -----------------------
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = None          # stock recipes set it; don't mix with modules
    cfg.model.cuda_graph_modules = ["attn"]
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    return cfg


# Notes
# - Regenerate the packed .parquet/.npy files after flipping pad_cu_seqlens: the old
#   artifacts were built without the padded boundaries and the metadata json.
# - If you are on an older Bridge that still has `packed_sequence_specs`, the knob is
#   cfg.dataset.packed_sequence_specs.pad_cu_seqlens = True.
# - If you can't upgrade, fall back to cfg.model.cuda_graph_impl = "none" for packed SFT.
# - Validate this path on its own (eager vs graph, same seed, compare loss per step);
#   a working pretraining graph config says nothing about the THD path.
