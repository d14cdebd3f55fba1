"""Flyte task: LoRA SFT (Megatron Bridge) with packed sequences + TE CUDA graphs.

Why the original run asserted
-----------------------------
'CUDA graph accepts only Tensor inputs. inference_context and packed_seq_params are
excluded from input list.' comes from MCore's TE replay path: a TE-scoped graph only
takes Tensor inputs, and PackedSeqParams is a dataclass whose cu_seqlens change per
batch (different number of sequences per pack), so THD inputs are neither
tensor-only nor static-shaped. Capture would also hit host syncs in THD attention.

Fix used here
-------------
Offline packing with constant-length cu_seqlens (pad_cu_seqlens=True). Padding
cu_seqlens to a fixed length is what makes the packed metadata static, so we keep
pad_to_max_length off and do not pad every pack out to the full sequence length
(that would give back most of the packing gain). If you'd rather not touch the data
path, the fallback is simply cuda_graph_impl="none" for this job.

Energon native sequence packing is NOT supported with CUDA graphs; use offline packing.
Validate the packed SFT job on its own (eager vs graphed, same seed, steady-state
steps, loss parity). A graph config that works for pretraining says nothing here.
"""

from flytekit import Resources, task


@task(requests=Resources(gpu="8"), limits=Resources(gpu="8"))
def lora_sft_packed_graphs(recipe_name: str, seq_length: int = 4096) -> str:
    from megatron.bridge.recipes import get_recipe  # your usual recipe lookup
    from megatron.bridge.training.finetune import finetune
    from megatron.bridge.training.gpt_step import forward_step

    cfg = get_recipe(recipe_name)(peft="lora", packed_sequence=True, seq_length=seq_length)

    # --- packed data path: fixed-shape metadata -------------------------------
    cfg.dataset.enable_offline_packing = True                 # Bridge v0.6 spelling
    cfg.dataset.offline_packing_specs.pad_cu_seqlens = True   # v0.5: cfg.dataset.packed_sequence_specs
    cfg.dataset.dataset_kwargs = {**(cfg.dataset.dataset_kwargs or {}), "pad_to_max_length": False}
    cfg.train.micro_batch_size = 1                            # offline packed SFT requires MBS 1

    # --- graphs ---------------------------------------------------------------
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = None          # 0.18+: clear the legacy field
    cfg.model.cuda_graph_modules = ["mlp"]     # attention stays eager with packed_seq_params
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    finetune(cfg, forward_step)
    return cfg.checkpoint.save
