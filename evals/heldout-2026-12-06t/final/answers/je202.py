"""Packed-sequence LoRA SFT with TE CUDA graphs (Megatron Bridge).

Why you hit the assert
----------------------
`CUDA graph accepts only Tensor inputs. inference_context and packed_seq_params are excluded
from input list.` comes from TransformerLayer._te_cuda_graph_replay: TE's
make_graphed_callables() only takes tensors, and PackedSeqParams is a dataclass whose
cu_seqlens length changes from pack to pack. With attention inside the graph every packed
batch trips it.

The way NVIDIA's own LoRA perf recipes run packed SFT with graphs is to keep attention out of
the captured region (graph the MLP only) and make the packed boundaries static. The config
below does that.
"""

from megatron.bridge.recipes.llama.h100.llama3 import llama3_8b_peft_1gpu_h100_bf16_config

cfg = llama3_8b_peft_1gpu_h100_bf16_config(peft_scheme="lora")

# --- CUDA graphs: TE per-layer, MLP only -----------------------------------------------
# Attention runs eagerly, so packed_seq_params never reaches the graphed callable;
# the MLP graph only sees hidden_states of shape [packed_len, 1, hidden].
cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_scope = ["mlp"]
cfg.model.cuda_graph_warmup_steps = 3
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True

# --- Packing: static boundaries ----------------------------------------------------------
# pad_cu_seqlens pads cu_seqlens to a constant length and every pack to the pack size
# recorded in the packing metadata, so each micro-batch already has a fixed token width.
cfg.dataset.offline_packing_specs.packed_sequence_size = cfg.model.seq_length
cfg.dataset.offline_packing_specs.pad_cu_seqlens = True
# pad_to_max_length is redundant once cu_seqlens are padded and only adds pad tokens to
# every sample before packing; leave it off so packing efficiency stays where it was.
cfg.dataset.dataset_kwargs = {"pad_to_max_length": False}

# Micro-batch must stay 1 with packed sequences.
cfg.train.micro_batch_size = 1

# Sanity check before launching: the first steps should log
#   Rank 0: 32 graphable layers.
#   Time spent in CUDA Graphs capture on rank 0: ...
# and the packed run's loss should track an eager packed run with the same seed.
