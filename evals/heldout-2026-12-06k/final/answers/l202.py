"""Packed-sequence LoRA SFT + TE CUDA graphs: what works and what doesn't.

Why you hit the assert
----------------------
TE-scoped graphs (cuda_graph_impl="transformer_engine") replay through
MegatronModule._te_cuda_graph_replay, which asserts every input is a
torch.Tensor ("CUDA graph accepts only Tensor inputs."). With
packed_sequence=True the layer receives PackedSeqParams (a dataclass holding
cu_seqlens / max_seqlen for THD), i.e. a non-Tensor input. Even if it were a
tensor, the cu_seqlens length and values differ per batch, and the THD
attention path does host syncs that cannot run inside capture. So packed SFT
with dynamic packing and TE attn graphs is not supported.

Two supported ways forward
--------------------------
Option A (simplest, always valid): no graphs for packed SFT.
Option B (recent Bridge/MCore/TE only): offline packing with *static* shapes:
  dataset pad_to_max_length=True       -> fixed token width per micro-batch
  offline_packing_specs.pad_cu_seqlens=True -> fixed-size cu_seqlens tensors
Bridge validates this: "Offline packing with CUDA graphs requires dataset
pad_to_max_length=True." and "Packed attention CUDA graphs require
offline_packing_specs.pad_cu_seqlens=True." Energon native sequence packing
does not support CUDA graphs at all.
"""


def packed_sft_no_graphs(cfg):
    """Option A: keep packed_sequence=True, disable graphs."""
    cfg.model.cuda_graph_impl = "none"
    return cfg


def packed_sft_with_attn_graphs(cfg, packed_size: int = 4096):
    """Option B: offline packing with padded cu_seqlens + TE attn graphs.

    Requires a Bridge build that has dataset.offline_packing_specs
    (check training/config.py for the pad_cu_seqlens validation).
    """
    cfg.dataset.enable_offline_packing = True
    cfg.dataset.offline_packing_specs.packed_sequence_size = packed_size
    cfg.dataset.offline_packing_specs.pad_cu_seqlens = True  # static cu_seqlens shape
    cfg.dataset.pad_to_max_length = True                      # static token width

    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_modules = ["attn"]   # on MCore <= 0.17: cuda_graph_scope=["attn"]
    cfg.rng.te_rng_tracker = True
    return cfg


# Validation checklist (treat packed SFT as its own target, not "same as pretrain"):
#  1. 30-50 steps eager vs. graphed on the same packed dataset: loss / grad-norm match.
#  2. Confirm capture in the log (TECudaGraphHelper reports >0 graphable layers).
#  3. If you see the Tensor-input assert again, the packed path is still dynamic
#     (pad_cu_seqlens not applied) -> re-pack the dataset, or go back to Option A.
