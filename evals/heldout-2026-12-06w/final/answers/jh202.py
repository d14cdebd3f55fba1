# Packed-sequence LoRA SFT + TE-scoped CUDA graphs on attention (Megatron Bridge)
#
# Why you hit the assert:
#   TE's make_graphed_callables only accepts Tensor inputs. PackedSeqParams is a
#   dataclass, and its cu_seqlens tensor changes length with every pack (different
#   number of samples per row). So MCore drops packed_seq_params from the graph
#   inputs and asserts it is None whenever attention is inside the TE graph.
#
# The fix is to make the boundaries static: pad cu_seqlens to a fixed length so
# every pack has the same boundary tensor shape. Bridge's offline packing does
# this for you when pad_cu_seqlens=True (it needs the packing metadata json, which
# the packing step writes next to the packed .parquet files).
#
# NOTE: your installed megatron-core + TE must have THD CUDA-graph support
# (Megatron-LM PR #4359 / TE PR #2898). On an older core the TE replay assert is
# still there, and you should just run this job with cuda_graph_impl="none".

from megatron.bridge.data.packing.config import PackedSequenceSpecs


def apply_packed_cuda_graph_overrides(cfg, seq_length: int = 4096):
    """Mutates a finetune ConfigContainer in place."""

    # --- data: offline packing with fixed boundaries ---------------------------
    cfg.dataset.enable_offline_packing = True
    cfg.dataset.offline_packing_specs = PackedSequenceSpecs(
        packed_sequence_size=seq_length,
        pad_cu_seqlens=True,          # fixed-size cu_seqlens -> static attention inputs
    )
    # pad_to_max_length stays off: the packer already fills each row up to
    # packed_sequence_size, so the token width is static anyway. Turning it on
    # just pads every row with extra tokens and costs throughput for nothing.
    cfg.dataset.dataset_kwargs = {**(cfg.dataset.dataset_kwargs or {}), "pad_to_max_length": False}

    # --- model: TE per-layer graphs on attention ------------------------------
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = None           # 0.18+: use modules, clear the recipe's scope
    cfg.model.cuda_graph_modules = ["attn"]
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    return cfg


# Validate before launching on the cluster:
#   cfg = apply_packed_cuda_graph_overrides(cfg)
#   cfg.validate()
# Then run a short A/B against an eager packed run (same seed): check that
# "Rank N: K graphable layers." shows K > 0 and that the loss curves overlap.
# Treat the packed SFT path as its own validation target; pretraining results
# with graphs don't carry over.
