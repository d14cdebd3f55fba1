# Packed LoRA SFT with TE attention graphs (Megatron Bridge, recent MCore/TE).
# THD packing passes cu_seqlens through PackedSeqParams (not a Tensor, varying length), so the
# attention graph can only be captured when the boundaries have a fixed size.
from megatron.bridge.data.packing.config import PackedSequenceSpecs
from megatron.bridge.recipes.llama import llama3_8b_peft_config

cfg = llama3_8b_peft_config()   # LoRA
cfg.dataset.enable_offline_packing = True
cfg.dataset.offline_packing_specs = PackedSequenceSpecs(
    packed_sequence_size=4096,
    pad_cu_seqlens=True,        # fixed-size cu_seqlens
)
# dataset_kwargs["pad_to_max_length"] stays off: the packer already fills each pack close to seq_length,
# so padding whole samples would only waste tokens.
cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_modules = ["attn"]
cfg.model.cuda_graph_warmup_steps = 3
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True
# Validate the packed SFT path separately from pretraining.
