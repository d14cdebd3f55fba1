"""cg_scope_presets.py -- TE CUDA-graph scope presets for our hybrid models.

Scopes are per MCore module type. Two hybrids in the zoo:

* Qwen3.5 interleaves standard attention layers with Gated DeltaNet (linear-attention,
  state-space style recurrent) layers. The full-attention layers are captured by ``attn``;
  the GDN layers are recurrent SSM blocks and are captured by the ``mamba`` scope.
* Nemotron-H has real Mamba-2 layers (``MambaLayer``) next to attention and MLP layers:
  ``mamba`` + ``attn`` (+ ``mlp`` for its dense MLP layers).

Known issue: NVFP4 together with a graphed ``mamba`` scope hits an illegal memory access
after validation (TransformerEngine#3316). Until TE is fixed, for NVFP4 runs either drop
``mamba`` from the list or switch the recipe to MXFP8 -- ``scopes_for`` does the former.

Always confirm replay afterwards: "N graphable layers" on every PP rank, then compare
post-capture step time and loss with an eager run.
"""

from __future__ import annotations

SCOPE_PRESETS: dict[str, list[str]] = {
    # attention layers + GDN layers
    "qwen3.5": ["attn", "mamba"],
    # attention + Mamba-2 + dense MLP
    "nemotron-h": ["attn", "mamba", "mlp"],
}


def scopes_for(model: str, precision: str = "bf16") -> list[str]:
    scopes = list(SCOPE_PRESETS[model])
    if precision == "nvfp4" and "mamba" in scopes:
        scopes.remove("mamba")  # TE#3316 workaround; alternative: run MXFP8
    return scopes


def apply_cuda_graph_scopes(cfg, model: str, precision: str, mcore_version: tuple[int, int]) -> None:
    """Write the TE graph settings onto a Bridge ConfigContainer, era-correct."""
    scopes = scopes_for(model, precision)
    cfg.model.cuda_graph_impl = "transformer_engine"
    if mcore_version >= (0, 18):
        cfg.model.cuda_graph_scope = None
        cfg.model.cuda_graph_modules = scopes
    else:
        cfg.model.cuda_graph_scope = scopes
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
