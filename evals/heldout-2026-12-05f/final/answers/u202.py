"""Bridge config factory: LoRA SFT with packed sequences + TE-scoped CUDA graphs.

Why your run asserts
--------------------
TE's make_graphed_callables only takes Tensor inputs, and ``packed_seq_params`` is a
PackedSeqParams dataclass whose cu_seqlens change size from pack to pack. The
online ``packed_sequence=True`` path therefore can't be captured.

Fix: pack offline with a fixed-size boundary tensor. ``pad_cu_seqlens=True`` pads
cu_seqlens to a constant length, which already gives every batch the same shapes,
so the dataset-level ``pad_to_max_length`` flag is not needed here (leave it at its
default to avoid wasting tokens on padding).

Energon's native packing is not supported with graphs; use the GPT SFT offline
packing path below. Validate this packed run separately from pretraining (eager vs.
graphs, same seed, compare loss).
"""

from megatron.bridge.data.packing.config import PackedSequenceSpecs  # Bridge v0.6.x location


def packed_lora_sft_with_graphs(cfg, seq_length: int = 4096):
    """Mutate a Bridge ConfigContainer produced by a finetune recipe."""
    # --- data: offline packing with fixed-size cu_seqlens ---------------------
    cfg.dataset.enable_offline_packing = True
    cfg.dataset.offline_packing_specs = PackedSequenceSpecs(
        packed_sequence_size=seq_length,
        pad_cu_seqlens=True,
    )

    # --- model: TE-scoped attention graphs ------------------------------------
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = None          # clear the recipe's legacy key
    cfg.model.cuda_graph_modules = ["attn"]    # megatron-core 0.18+
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg


if __name__ == "__main__":
    # usage: from my_recipes import base_cfg; cfg = packed_lora_sft_with_graphs(base_cfg())
    pass
