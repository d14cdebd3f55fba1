# Packed-sequence LoRA SFT + TE CUDA graphs on Megatron Bridge.
#
# Why you hit the assert:
#   TE make_graphed_callables() graphs take tensors only. In THD/packed mode every layer also
#   receives a PackedSeqParams dataclass (cu_seqlens, max_seqlen, ...). That object is not a
#   tensor, and its cu_seqlens length changes with how many samples land in each pack, so
#   TransformerLayer._te_cuda_graph_replay refuses it:
#     "CUDA graph accepts only Tensor inputs. inference_context and packed_seq_params are
#      excluded from input list."
#
# The fix is to make the packed batch static: pack offline and pad each pack to the full
# sequence length. Every step then has the same token width and the attention graph can be
# replayed. Validate this on its own (short eager vs graph A/B); don't assume that because
# pretraining works with graphs, the packed path does too.

from megatron.bridge.data.packing.config import PackedSequenceSpecs
from megatron.bridge.training.config import ConfigContainer


def enable_packed_sft_cuda_graphs(cfg: ConfigContainer, seq_length: int = 4096) -> ConfigContainer:
    # --- data: offline packing with static shapes -------------------------------------------
    cfg.dataset.seq_length = seq_length
    cfg.dataset.enable_offline_packing = True
    cfg.dataset.offline_packing_specs = PackedSequenceSpecs(
        packed_sequence_size=seq_length,
        # pad_cu_seqlens pads the boundary tensor for the *local full_iteration* graph,
        # which captures the data path too. With TE-scoped attn graphs, padding the
        # tokens (pad_to_max_length below) already gives a static shape, so leave this off
        # and skip generating the packing metadata file it requires.
        pad_cu_seqlens=False,
    )
    kwargs = dict(cfg.dataset.dataset_kwargs or {})
    kwargs["pad_to_max_length"] = True  # every pack is exactly seq_length tokens
    cfg.dataset.dataset_kwargs = kwargs

    # --- model: TE-scoped graphs on attention -----------------------------------------------
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = ["attn"]
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # Fixed micro-batch: packed SFT normally runs MBS=1 per pack.
    cfg.train.micro_batch_size = 1
    return cfg


# Usage:
#   cfg = your_lora_sft_recipe(...)
#   cfg = enable_packed_sft_cuda_graphs(cfg, seq_length=4096)
#   finetune(cfg, forward_step)
#
# If you are on an older Bridge without offline packing, set cuda_graph_impl="none" for the
# packed SFT run and keep graphs for pretraining only.
