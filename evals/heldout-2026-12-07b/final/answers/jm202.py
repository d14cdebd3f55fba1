"""Make packed-sequence LoRA SFT compatible with TE-scoped CUDA graphs (Megatron Bridge).

Why it asserts today: TE's make_graphed_callables graphs take tensors only. PackedSeqParams is a
dataclass, and its cu_seqlens tensor changes length with the number of sub-sequences in each pack,
so the graphed attention can't accept it. The fix is to hand the graph a fixed-size boundary tensor.

Apply after building your LoRA SFT recipe (the one you called with packed_sequence=True):

    cfg = make_packed_sft_graph_safe(cfg)
"""


def make_packed_sft_graph_safe(cfg):
    specs = cfg.dataset.offline_packing_specs  # older Bridge: cfg.dataset.packed_sequence_specs
    assert specs is not None, "enable offline packing first (packed_sequence=True in the recipe)"

    # Fixed-length cu_seqlens: padded up to the max number of sub-sequences recorded in the
    # packing metadata, so every micro-batch presents the same boundary-tensor shape to the graph.
    specs.pad_cu_seqlens = True

    # Keep per-sample padding OFF. The packer already fills every row to packed_sequence_size,
    # so the token dimension is fixed anyway. Padding each sample to max length on top of that
    # throws away most of what packing buys you (attention over pad tokens). pad_cu_seqlens is
    # the piece the graph actually needs.
    cfg.dataset.pad_to_max_length = False

    # TE per-layer graphs on attention (0.18+ spelling; on 0.16/0.17 put ["attn"] in cuda_graph_scope).
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = None
    cfg.model.cuda_graph_modules = ["attn"]
    cfg.model.cuda_graph_warmup_steps = 3

    # Graph replay needs TE's RNG tracker; Bridge asserts without both.
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg


# Notes
# - The packing metadata file must exist (it holds the max sub-sequence count that pad_cu_seqlens
#   pads to). Re-run the packing step if you only have the packed parquet.
# - Energon's native online packing is not a graph-compatible path; use offline packing.
# - Validate packed SFT + graphs on its own: eager vs graphed on the same packed data, same seed,
#   steady-state step time only, and loss parity. Pretraining results don't transfer.
# - The fallback is always cfg.model.cuda_graph_impl = "none" for this job.
