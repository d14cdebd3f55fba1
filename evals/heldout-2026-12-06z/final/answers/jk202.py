# Packed-sequence LoRA SFT + TE attn CUDA graphs (Megatron Bridge v0.6.x)
#
# Why you see the assert:
#   TE's make_graphed_callables only accepts Tensor inputs. On the THD path attention also gets
#   `packed_seq_params` (a PackedSeqParams dataclass holding cu_seqlens / max_seqlen). It is not a
#   Tensor, and cu_seqlens changes length per batch, so TE drops it from the graph inputs and asserts.
#
# Fix: switch to offline packing and pad cu_seqlens to a fixed length so the boundary tensor has a
# static shape. That is the only thing attention capture needs.

from megatron.bridge.training.config import ConfigContainer


def apply_packed_graph_settings(cfg: ConfigContainer) -> ConfigContainer:
    """Patch your existing LoRA SFT ConfigContainer (the one with packed_sequence=True today)."""

    # --- data: offline packing with static cu_seqlens -------------------------------------------
    cfg.dataset.enable_offline_packing = True
    cfg.dataset.offline_packing_specs.packed_sequence_size = cfg.dataset.seq_length
    cfg.dataset.offline_packing_specs.pad_cu_seqlens = True
    # Leave pad_to_max_length off: the packs are already filled up to packed_sequence_size, so
    # padding every sample to max length just burns FLOPs on pad tokens. pad_cu_seqlens alone
    # is what makes the graphed attention inputs static.
    cfg.dataset.pad_to_max_length = False

    # --- CUDA graphs: attention only -------------------------------------------------------------
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = ["attn"]  # megatron-core 0.18+: cfg.model.cuda_graph_modules = ["attn"]
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    return cfg


if __name__ == "__main__":
    from my_recipes import lora_sft_config  # <- your current recipe function

    cfg = apply_packed_graph_settings(lora_sft_config())
    # Sanity check before burning GPU hours: Bridge validates the packing/graph combination here.
    cfg.validate()
    print("packed SFT + attn graphs config OK")

# Notes
# - Energon native packing (packing_buffer_size) is not supported with CUDA graphs; use offline packing.
# - Validate the packed path on its own: compare loss and steady-state step time against the same
#   packed run with cuda_graph_impl="none" (same seed), skipping warmup + capture steps.
# - If your TE / MCore build predates padded-cu_seqlens support, upgrade or just run packed SFT eager.
