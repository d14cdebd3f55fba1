"""Packed-sequence LoRA SFT + TE-scoped CUDA graphs on attention (Megatron Bridge).

Why you hit
    CUDA graph accepts only Tensor inputs. inference_context and packed_seq_params
    are excluded from input list.

TE's make_graphed_callables can only take Tensor inputs with shapes fixed at capture.
In THD mode each TransformerLayer also receives `packed_seq_params` (a PackedSeqParams
dataclass holding cu_seqlens / max_seqlen). It is not a Tensor, and cu_seqlens changes
length with the number of samples in each pack, so the attention graph can't be
replayed across batches.

The fix is to make the packing static: pad cu_seqlens to a constant length so every
batch presents the same boundary tensor shape to the captured attention. Bridge
exposes that as `pad_cu_seqlens` on the offline packing specs. Regenerate the packed
dataset after enabling it (it needs the packing metadata file).

Drop this into your recipe script after the recipe builds `cfg`.
"""

from megatron.bridge.training.config import ConfigContainer


def enable_packed_attn_cuda_graphs(cfg: ConfigContainer) -> ConfigContainer:
    # --- graphs: TE-scoped, attention only -------------------------------------------
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = ["attn"]
    cfg.model.cuda_graph_warmup_steps = 3

    # Any CUDA graph needs TE's graph-safe RNG tracker, in both places.
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # --- packing: static cu_seqlens ----------------------------------------------------
    # Constant-size cu_seqlens is what makes packed attention capturable.
    cfg.dataset.offline_packing_specs.pad_cu_seqlens = True

    # pad_to_max_length is NOT needed here: once cu_seqlens is padded, the boundary
    # tensor already has a fixed shape, and THD packs are filled up to
    # packed_sequence_size by the packer anyway. Forcing pad_to_max_length would just
    # spend compute on pad tokens. Leave it at the recipe default (False).
    cfg.dataset.dataset_kwargs = {
        k: v for k, v in (cfg.dataset.dataset_kwargs or {}).items() if k != "pad_to_max_length"
    }

    return cfg


# Validation checklist (run this separately from any pretraining validation):
#   1. eager vs graphed, same seed, first ~50 steps: loss within bf16 noise
#   2. log shows "Rank N: K graphable layers." with K > 0 on every PP stage
#   3. compare steady-state step time after the capture step, not the capture step
#
# If it still won't capture on your container, the fallback is simply
#   cfg.model.cuda_graph_impl = "none"
# for packed SFT. Energon's native sequence packing does not support graphs at all.
