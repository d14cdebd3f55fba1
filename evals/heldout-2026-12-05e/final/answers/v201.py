"""LoRA SFT + packed sequences (THD) + TE CUDA graphs: what the assert means and two recipes that work.

Short answer: not as you have it. The assert

    CUDA graph accepts only Tensor inputs. inference_context and packed_seq_params are excluded from input list.

comes from TransformerLayer's graph entry point. Transformer Engine's per-layer graphs
(make_graphed_callables) can only take static-shape torch.Tensor arguments. With
packed_sequence=True every layer also receives `packed_seq_params`, a PackedSeqParams
*dataclass* (not a Tensor) whose cu_seqlens / max_seqlen change from batch to batch, and the THD
attention path reads those boundaries on the host while it would be capturing. A graph cannot
hold any of that, so you must pick one of the two configurations below.

Option A (safest): keep packing, turn graphs off for this SFT job.
Option B (recent Bridge + MCore + TE only): make the packed batch static. That means offline
packing, every pack padded to the full length (pad_to_max_length=True), and cu_seqlens padded to
a fixed size (offline_packing_specs.pad_cu_seqlens=True). Bridge enforces both:
    "Offline packing with CUDA graphs requires dataset pad_to_max_length=True."
    "Packed attention CUDA graphs require offline_packing_specs.pad_cu_seqlens=True."
(src/megatron/bridge/training/config.py, Megatron-Bridge v0.6.0). On-the-fly in-batch packing and
Energon's native sequence packing do not produce static shapes and do not support CUDA graphs:
use option A for those.

Validate the packed SFT path on its own. A pretraining run that captured fine proves nothing for
THD inputs. Run a short eager packed job first, then the graphed one; compare loss step by step and
check the capture lines (`Rank N: K graphable layers.` with K > 0, `Time spent in CUDA Graphs
capture ...`).
"""


def packed_sft_no_graphs(cfg):
    """Option A: packed LoRA SFT, eager. Works on every Bridge / MCore version."""
    cfg.model.cuda_graph_impl = "none"
    cfg.model.cuda_graph_scope = None          # 0.18+: also leave cuda_graph_modules empty
    return cfg


def packed_sft_with_te_graphs(cfg, seq_length: int):
    """Option B: offline-packed LoRA SFT with TE-scoped graphs on attention.

    Spelling is Megatron-Bridge v0.6.0 (GPTSFTDatasetConfig.enable_offline_packing /
    offline_packing_specs / dataset_kwargs). Older Bridge releases call the specs object
    `packed_sequence_specs`; the two padding switches are the same.
    """
    # --- data: static packs and static boundaries -------------------------------------
    from megatron.bridge.data.packing import PackedSequenceSpecs

    cfg.dataset.enable_offline_packing = True
    cfg.dataset.offline_packing_specs = PackedSequenceSpecs(
        packed_sequence_size=seq_length,
        pad_cu_seqlens=True,                                         # fixed-size cu_seqlens
    )
    cfg.dataset.dataset_kwargs = {**(cfg.dataset.dataset_kwargs or {}),
                                  "pad_to_max_length": True}      # every pack = seq_length tokens
    # pad_cu_seqlens=True without pad_to_max_length=True is rejected by Bridge.

    # --- graphs: narrow TE scope, RNG tracker on both sides ---------------------------
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = None                  # megatron-core 0.18+ (modules key)
    cfg.model.cuda_graph_modules = ["attn"]
    # megatron-core 0.16-0.17 instead: cfg.model.cuda_graph_scope = ["attn"]  (no modules key)
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg


# Bring-up order for option B:
#   1. eager packed run (option A) for ~50 steps, record loss + step time;
#   2. option B, same seed and data; expect identical loss to bf16 noise;
#   3. if it still asserts about packed_seq_params, your MCore/TE/Bridge stack predates padded
#      cu_seqlens support for TE graphs -> upgrade, or stay on option A.
