# %% [markdown]
# ## Packed-sequence LoRA SFT + TE attn CUDA graphs
# The assert ("CUDA graph accepts only Tensor inputs. inference_context and
# packed_seq_params are excluded from input list.") fires because the TE-scoped
# graph path only accepts Tensor arguments, and PackedSeqParams is a dataclass.
# On top of that, cu_seqlens varies per packed batch (different number of
# documents per pack), and THD attention syncs with the host on it during capture.
#
# Fix: go through Bridge's *offline* packing with padded cu_seqlens so the
# boundaries tensor has a fixed shape on every step. Energon's native packing
# is not an option with graphs.

# %%
from megatron.bridge.data.packing.config import PackedSequenceSpecs

cfg = build_lora_sft_config()   # your existing LoRA SFT ConfigContainer

# offline packing, static boundary tensor
cfg.dataset.enable_offline_packing = True
cfg.dataset.offline_packing_specs = PackedSequenceSpecs(
    packed_sequence_size=4096,
    pad_cu_seqlens=True,
)
# keep pad_to_max_length at its default (False): the packer already emits
# fixed-size bins, so padding every sample again only burns compute
cfg.dataset.pad_to_max_length = False

# TE scoped graphs on attention only
cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_scope = ["attn"]
cfg.rng.te_rng_tracker = True

# %% [markdown]
# Treat this as its own validation target: run ~200 steps eager vs graphed on the
# same seed and compare loss, and grep the log for the capture message. Success
# on pretraining does not carry over to packed SFT.
# If the stack is older (no pad_cu_seqlens support), just set
# cfg.model.cuda_graph_impl = "none" for packed SFT.
