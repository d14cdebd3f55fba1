# Packed-sequence LoRA SFT + TE-scoped CUDA graphs on attention (Megatron Bridge, current API)
#
# Why you hit the assert:
#   TransformerLayer._te_cuda_graph_replay() only forwards Tensor arguments into the graph.
#   With packed_sequence=True (THD) every micro-batch carries a PackedSeqParams dataclass
#   (cu_seqlens, max_seqlen, ...) and its cu_seqlens has a different length per batch, so MCore
#   asserts "packed_seq_params are excluded from input list" as soon as a graphed attention
#   layer receives it. A graph replays one fixed shape; variable boundaries can't be captured.
#
# The fix is to make the packed boundaries static: pad cu_seqlens to a fixed length using the
# packing metadata, so every micro-batch presents the same tensor shapes to the captured region.
# Apply this on top of your existing LoRA finetune recipe.

from megatron.bridge.data.packing import PackedSequenceSpecs


def enable_packed_cuda_graphs(cfg, packed_size: int = 4096):
    # --- dataset: offline packing with static boundaries -----------------------------------
    cfg.dataset.enable_offline_packing = True
    cfg.dataset.offline_packing_specs = PackedSequenceSpecs(
        packed_sequence_size=packed_size,
        pad_cu_seqlens=True,  # fixed-length cu_seqlens -> static shapes for the graphed attention
    )
    # Keep per-sample padding off. pad_cu_seqlens already gives the graph a fixed-size boundary
    # tensor; padding every sample out to max length on top of that just throws away the
    # throughput you packed for.
    cfg.dataset.dataset_kwargs = {**(cfg.dataset.dataset_kwargs or {}), "pad_to_max_length": False}

    # --- model: TE per-layer graphs, attention only (megatron-core 0.18+ spelling) -----------
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = None          # recipes set "full"; must be cleared with modules
    cfg.model.cuda_graph_modules = ["attn"]
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg


# Notes
# - The packing step writes a metadata JSON next to the packed files; pad_cu_seqlens needs it,
#   so re-run the packing once after switching the spec.
# - Energon's native (online) packing does not work with CUDA graphs; use offline packing.
# - Treat this as its own bring-up: run the packed SFT eagerly first (cuda_graph_impl="none"),
#   note step time and loss, then enable graphs and compare the same steps. A pretraining run
#   that graphs fine says nothing about the packed path.
# - If you're on an older Bridge/MCore/TE combo where the attention path still rejects
#   packed_seq_params even with padded boundaries, the fallback is cuda_graph_impl="none" for SFT.
