"""sft_packed_graphs.py -- overrides for LoRA SFT with packed sequences + TE CUDA graphs.

Import and call `apply(cfg)` on the ConfigContainer returned by your finetune recipe
(Megatron Bridge with offline packing, i.e. the v0.6.0-style GPTSFTDatasetConfig).

Why this is needed: the assert
    "CUDA graph accepts only Tensor inputs. inference_context and packed_seq_params
     are excluded from input list."
fires because TE's make_graphed_callables only takes static-shape Tensor inputs, and
PackedSeqParams is a non-Tensor dataclass whose cu_seqlens change every micro-batch
(THD attention also syncs to the host while it is being captured).

The fix is to give capture a static shape for the packed boundaries: offline packing with
padded cu_seqlens. That fixes the cu_seqlens shape, so each micro-batch can keep its own
natural length; padding every sample to seq_length (pad_to_max_length) only wastes tokens
and is not needed for graphs.
"""


def apply(cfg):
    # --- data: offline packing with fixed-size cu_seqlens --------------------------------
    cfg.dataset.enable_offline_packing = True
    assert cfg.dataset.offline_packing_specs is not None, "set offline_packing_specs first"
    cfg.dataset.offline_packing_specs.pad_cu_seqlens = True
    # (Energon native sequence packing does not support CUDA graphs: stay on offline packing.)

    # --- model: TE per-layer graphs on attention (MCore 0.18+ spelling) -------------------
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = None          # recipes may set it; 0.18+ asserts if both set
    cfg.model.cuda_graph_modules = ["attn"]
    cfg.model.cuda_graph_warmup_steps = 3

    # --- RNG: graphs need TE's graph-safe tracker ----------------------------------------
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # --- self-checks ----------------------------------------------------------------------
    assert cfg.model.cuda_graph_impl == "transformer_engine"
    assert cfg.dataset.offline_packing_specs.pad_cu_seqlens is True
    return cfg


# Validation plan (packed SFT is its own target; pretraining success doesn't carry over):
#   1. eager packed run (cuda_graph_impl="none"), fixed seed -> loss + steady-state step time
#   2. apply(cfg) run -> look for "Rank N: K graphable layers." with K > 0 and the capture time
#   3. compare loss step-for-step and steady-state step time (exclude the capture step)
# If your container's Megatron-Core/TE predate packed-attention graph support, fall back to
# cfg.model.cuda_graph_impl = "none" for this job.
