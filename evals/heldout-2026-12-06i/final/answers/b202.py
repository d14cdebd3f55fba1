"""Packed-sequence LoRA SFT with CUDA graphs for Megatron Bridge.

Why the original run asserted
-----------------------------
With packed_sequence=True, every TransformerLayer gets a ``packed_seq_params``
(PackedSeqParams dataclass: cu_seqlens_q/kv, max_seqlen_q/kv, ...). TE scoped
graphs (``cuda_graph_impl="transformer_engine"``) only replay Tensor inputs, and
``TransformerLayer._te_cuda_graph_replay`` asserts that ``packed_seq_params`` is
None whenever attention lives inside the captured region:

    CUDA graph accepts only Tensor inputs. inference_context and
    packed_seq_params are excluded from input list.

cu_seqlens also changes from batch to batch, so even a tensor-only capture would
replay stale sequence boundaries.

What this recipe does
---------------------
* Uses offline (pre-packed) data instead of on-the-fly/Energon packing; Energon
  native packing rejects CUDA graphs entirely.
* Turns on ``pad_cu_seqlens`` so every pack has a cu_seqlens tensor of the same
  length (the packer pads each pack up to the global max number of sequences and
  pads the token buffer to ``packed_sequence_size``), which gives the graphs a
  static shape.
* Keeps attention *out* of the TE graph: scope is ``["mlp"]``, the same layout
  Bridge uses for its Llama-3 70B LoRA perf recipes.
* Enables the TE RNG tracker in both places (required for graph-safe RNG).

Validate separately from pretraining: run the same dataset eager first, then
compare loss and post-capture step time.
"""

from megatron.bridge.training.config import ConfigContainer


def apply_packed_lora_cuda_graphs(
    cfg: ConfigContainer,
    packed_train_data_path: str,
    packed_val_data_path: str,
    packed_metadata_path: str,
) -> ConfigContainer:
    """Mutate an existing LoRA SFT ConfigContainer (packed THD data) for TE graphs."""
    seq_length = cfg.model.seq_length

    # --- static shapes -------------------------------------------------------
    cfg.dataset.seq_length = seq_length
    cfg.train.micro_batch_size = 1          # THD packing: one pack per microbatch

    cfg.dataset.enable_offline_packing = True
    specs = cfg.dataset.offline_packing_specs
    specs.packed_sequence_size = seq_length
    specs.packed_train_data_path = packed_train_data_path
    specs.packed_val_data_path = packed_val_data_path
    specs.packed_metadata_path = packed_metadata_path   # needed for global max #seqs
    specs.pad_cu_seqlens = True                          # fixed-length cu_seqlens + padded packs

    # --- CUDA graphs ---------------------------------------------------------
    cfg.model.cuda_graph_impl = "transformer_engine"
    # megatron-core >= 0.18 spelling; on 0.16/0.17 use cfg.model.cuda_graph_scope = ["mlp"]
    cfg.model.cuda_graph_modules = ["mlp"]
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    return cfg


# Fallback if this path does not show a gain in an A/B against eager:
#   cfg.model.cuda_graph_impl = "none"
