"""Bridge override: LoRA SFT on packed (THD) data with TE-scoped CUDA graphs on attention.

Why the original run asserted
-----------------------------
``CUDA graph accepts only Tensor inputs. inference_context and packed_seq_params are
excluded from input list.`` comes from ``TransformerLayer._te_cuda_graph_replay``: TE's
``make_graphed_callables`` can only take tensors, and ``PackedSeqParams`` is a dataclass.
On top of that, ``cu_seqlens`` changes length from batch to batch (it depends on how many
samples land in each pack), so even a tensorised version would not be shape-static.

Fix
---
Offline packing already emits rows of exactly ``packed_sequence_size`` tokens, so the token
dimension is static by construction. The only dynamic piece left is the boundary tensor.
``pad_cu_seqlens=True`` pads ``cu_seqlens`` to a fixed length (taken from the packing
metadata), which makes packed attention capturable.

``pad_to_max_length`` is *not* needed here: it pads every individual sample to
``seq_length`` before packing, which defeats the purpose of packing (you would get one
sample per pack) and just burns tokens. Leave it off.

Usage::

    cfg = llama32_1b_sft_1gpu_h100_bf16_config()
    cfg = enable_packed_attn_cuda_graphs(cfg)
"""

from megatron.bridge.training.config import ConfigContainer


def enable_packed_attn_cuda_graphs(cfg: ConfigContainer) -> ConfigContainer:
    # --- graphs: TE per-layer capture, attention only -------------------------------
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_modules = ["attn"]        # use cuda_graph_scope on mcore <= 0.17
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True            # graph-safe RNG is mandatory
    cfg.rng.te_rng_tracker = True

    # --- data: offline packing with static boundaries -------------------------------
    assert cfg.dataset.enable_offline_packing, "expects an offline-packed SFT recipe"
    specs = cfg.dataset.offline_packing_specs
    specs.packed_sequence_size = cfg.model.seq_length
    specs.pad_cu_seqlens = True                    # fixed-length cu_seqlens -> capturable
    # NOTE: intentionally not setting dataset_kwargs["pad_to_max_length"] (see docstring)

    # --- LoRA run hygiene ------------------------------------------------------------
    cfg.model.recompute_granularity = None         # full recompute is not allowed with TE graphs
    return cfg


# Sanity checks after the first run:
#   * log shows "Rank N: K graphable layers." with K > 0 on every rank
#   * the capture time gets logged once, after the warmup steps
#   * loss / grad-norm track an eager run on the same packed data for ~200 steps
