"""Make LoRA SFT with packed sequences work with TE-scoped CUDA graphs.

Why the assert fires
--------------------
TE's make_graphed_callables only accepts Tensor inputs. TransformerLayer's TE replay
path asserts that `packed_seq_params` is None, because PackedSeqParams is a dataclass
and, with dynamic THD packing, cu_seqlens changes length from batch to batch (and the
THD attention path syncs them to the host during capture).

Fix
---
Switch to offline packing with padded cu_seqlens so every packed microbatch has the
same cu_seqlens shape; then attention can be captured. Padding cu_seqlens already fixes
the boundary tensor shape, so we do not need to pad every sample to max length (that
would waste tokens and defeat the point of packing).

Validate separately from pretraining: run 200 steps eager vs graphed on the SFT data
and compare loss.
"""

from megatron.bridge.recipes.llama import llama3_8b_finetune_config


def build_config():
    cfg = llama3_8b_finetune_config(peft="lora", packed_sequence=True)

    # --- packing: offline, fixed boundary shapes -------------------------------
    cfg.dataset.offline_packing_specs.pad_cu_seqlens = True
    cfg.dataset.pad_to_max_length = False  # cu_seqlens padding is enough for static shapes

    # --- CUDA graphs -----------------------------------------------------------
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_modules = ["attn"]
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # If this still asserts on your stack, fall back to cuda_graph_impl = "none"
    # for packed SFT; Energon native packing is not supported with graphs either.
    return cfg


if __name__ == "__main__":
    print(build_config().model.cuda_graph_impl)
