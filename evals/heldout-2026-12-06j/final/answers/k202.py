"""Packed-sequence LoRA SFT + CUDA graphs: what works, and a config builder for it.

Short version
-------------
Your assert comes from ``TransformerLayer._te_cuda_graph_replay`` in Megatron Core:

    "CUDA graph accepts only Tensor inputs. inference_context and packed_seq_params
     are excluded from input list."

TE-scoped graphs (``make_graphed_callables``) replay against static *tensor* inputs.
With ``packed_sequence=True`` every layer call carries ``packed_seq_params``, which is a
``PackedSeqParams`` dataclass and not a tensor. Its ``cu_seqlens`` also change length and
values from batch to batch (a different number of samples per pack), and the THD
attention path needs those boundaries on every step. When ``attn`` is inside the graphed
region, MCore refuses to capture it. That is by design, not a bug in your config.

So you can't combine "packed THD batches" with "attention inside a TE graph" as you have
it configured. Your options, safest first:

  A. Packed SFT without graphs: ``cuda_graph_impl="none"``. Always valid. For SFT,
     packing usually buys more than graphs do.
  B. Keep packing, graph only the MLP. If the scope is non-empty and ``attn`` isn't in
     it, MCore runs attention (and so ``packed_seq_params``) eagerly and only graphs the
     MLP part of each layer. Bridge still requires fixed-width packs for any
     TE graph with offline packing: ``pad_to_max_length=True``. The Llama-3 LoRA perf
     recipes in Bridge use exactly this (TE graphs, scope ``["mlp"]``,
     ``pad_cu_seqlens=True``, ``dataset_kwargs={"pad_to_max_length": True}``). Dense
     models only: ``mlp`` is rejected for all-MoE models.
  C. Attention-scoped graphs over packed batches. Recent Bridge validates this path
     explicitly: "Packed attention CUDA graphs require
     offline_packing_specs.pad_cu_seqlens=True", plus pad_to_max_length=True. It only
     works when your Bridge/MCore/TE combination supports it. If your MCore still
     raises the assert above with attn in scope, you're not on such a stack, so use A or B.

Not an option: Energon native (online) packing. Current Bridge rejects it with CUDA graphs
("Energon native sequence packing does not support CUDA graphs.").

Whichever you pick, validate packed SFT as its own target. A graph config that works for
pretraining (BSHD, fixed seq length) says nothing about the packed THD path.
"""

from megatron.bridge.data.packing.config import PackedSequenceSpecs  # Bridge >= 0.6 layout


def _set_graph_modules(model_cfg, modules):
    """MCore 0.18+ uses cuda_graph_modules; 0.16/0.17 only have cuda_graph_scope."""
    if hasattr(model_cfg, "cuda_graph_modules"):
        model_cfg.cuda_graph_modules = list(modules)
    else:
        model_cfg.cuda_graph_scope = list(modules)


def apply_packed_sft_graphs(cfg, option: str = "B"):
    """Mutate a Bridge LoRA/SFT ConfigContainer for packed sequences.

    option "A": packed, no graphs
    option "B": packed, TE graphs on the dense MLP only, fixed-width packs
    """
    seq = cfg.model.seq_length

    # Offline packing (text SFT). MBS must be 1 with offline packing.
    cfg.dataset.enable_offline_packing = True
    cfg.dataset.offline_packing_specs = PackedSequenceSpecs(
        packed_sequence_size=seq,  # keep model / dataset / pack length equal
    )
    cfg.train.micro_batch_size = 1

    if option == "A":
        cfg.model.cuda_graph_impl = "none"
        return cfg

    if option == "B":
        # Static shapes: every pack padded to the full width, cu_seqlens padded to a
        # fixed length. Bridge checks: pad_cu_seqlens=True requires pad_to_max_length=True,
        # and any TE graph with offline packing requires pad_to_max_length=True.
        cfg.dataset.offline_packing_specs.pad_cu_seqlens = True
        cfg.dataset.dataset_kwargs = {**(cfg.dataset.dataset_kwargs or {}), "pad_to_max_length": True}

        cfg.model.cuda_graph_impl = "transformer_engine"
        _set_graph_modules(cfg.model, ["mlp"])  # attention (THD, packed_seq_params) stays eager
        cfg.model.use_te_rng_tracker = True
        cfg.rng.te_rng_tracker = True
        return cfg

    raise ValueError(f"unknown option {option!r}")


# Checks before you launch
# ------------------------
# 1. Rebuild the packed artifacts into a fresh output dir after turning on
#    pad_cu_seqlens / pad_to_max_length. Pack membership and metadata change.
# 2. Short A/B on the same packed data: option A vs option B, 50-100 steps.
#    Loss curves should overlap. Look for "graphable layers" > 0 and a capture-time
#    line in the graph run.
# 3. Compare steady-state step time only after capture (skip the warmup/capture
#    iterations). With LoRA + MBS=1 the MLP-only graph gain can be small.
#    If it's neutral, keep option A.
