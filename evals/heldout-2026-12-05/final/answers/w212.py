"""sft_lora_packed.py - build and launch a LoRA SFT run with packed sequences + TE graphs.

Why this exists: our LoRA SFT with packed_sequence=True died with

    CUDA graph accepts only Tensor inputs. inference_context and packed_seq_params
    are excluded from input list.

TE scoped graphs record tensor inputs with fixed shapes. PackedSeqParams is a dataclass
and its cu_seqlens change length every batch (different number of docs per pack), and
THD attention reads the boundaries on the host. So the only way to keep graphs on attn
is offline packing with a fixed boundary layout (pad_cu_seqlens). Energon's native
sequence packing can't do this - use the offline packer. If the Bridge in the container
doesn't know pad_cu_seqlens, run with --no-graphs.

Validate this path on its own (eager vs graphs on the same packed file and seed); the
pretraining A/B says nothing about packed SFT.

Usage:
    python sft_lora_packed.py --recipe my_recipes.llama:lora_sft_config --pack-size 4096
    python sft_lora_packed.py --recipe my_recipes.llama:lora_sft_config --no-graphs
"""

import importlib

import click


def _load_recipe(spec: str):
    module_name, fn_name = spec.split(":")
    return getattr(importlib.import_module(module_name), fn_name)


@click.command()
@click.option("--recipe", required=True, help="module:function returning a ConfigContainer")
@click.option("--pack-size", type=int, default=4096, show_default=True)
@click.option("--graphs/--no-graphs", default=True, show_default=True)
@click.option("--modules", default="attn", show_default=True, help="comma separated (MCore 0.18+)")
def main(recipe: str, pack_size: int, graphs: bool, modules: str) -> None:
    cfg = _load_recipe(recipe)()

    # Offline packing: fixed pack width, packed once, reused across runs.
    cfg.dataset.enable_offline_packing = True
    cfg.dataset.offline_packing_specs.packed_sequence_size = pack_size
    # Pad cu_seqlens to a fixed length so packed attention sees the same boundary
    # tensor shape on every step; this is what makes the batch graph-safe. The token
    # dimension is already pack_size after packing, so we leave pad_to_max_length at
    # its default and don't waste compute padding the short tail packs.
    cfg.dataset.offline_packing_specs.pad_cu_seqlens = True

    if graphs:
        cfg.model.cuda_graph_impl = "transformer_engine"
        cfg.model.cuda_graph_scope = None  # stock recipes set it; 0.18+ asserts with modules
        cfg.model.cuda_graph_modules = [m.strip() for m in modules.split(",") if m.strip()]
        cfg.model.cuda_graph_warmup_steps = 3
        cfg.model.use_te_rng_tracker = True
        cfg.rng.te_rng_tracker = True
    else:
        cfg.model.cuda_graph_impl = "none"

    from megatron.bridge.training.finetune import finetune
    from megatron.bridge.training.gpt_step import forward_step

    finetune(config=cfg, forward_step_func=forward_step)


if __name__ == "__main__":
    main()
