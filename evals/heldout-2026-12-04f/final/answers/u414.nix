# cuda-graph-overrides.nix
# Per-model CUDA graph overrides for our Bridge launcher (rendered to Hydra overrides by
# lib.toHydra in ./lib.nix). megatron-core 0.19, so the per-layer key is cuda_graph_modules
# (0.16/0.17 would be cuda_graph_scope with the same names).
#
# Which scope covers which layer type:
#   - "attn"  : softmax self-attention inside a TransformerLayer
#   - "mamba" : recurrent / state-space mixers. Gated DeltaNet is a gated linear recurrence
#               (Mamba-2-style state update), so Qwen3.5's GDN layers go under "mamba";
#               Qwen3.5's few full-attention layers are not worth a graph each.
#   - "mlp"   : dense MLP blocks
#
# NVFP4 + "mamba": illegal memory access on the first replay after validation
# (TransformerEngine#3316). Until TE has the fix, either train that model in MXFP8 or
# drop "mamba" from its list; nvfp4 variants below do the latter.
{ lib ? import ./lib.nix }:
let
  teGraphs = modules: {
    "model.cuda_graph_impl" = "transformer_engine";
    "model.cuda_graph_scope" = null;          # base recipes may set it; 0.18+ asserts if both
    "model.cuda_graph_modules" = modules;
    "model.cuda_graph_warmup_steps" = 3;
    "model.use_te_rng_tracker" = true;
    "rng.te_rng_tracker" = true;
  };
in
{
  qwen35-dense = teGraphs [ "mamba" "mlp" ];

  nemotron-h-8b = teGraphs [ "attn" "mamba" "mlp" ];

  # NVFP4 runs: no graphed Mamba mixers (TE#3316)
  nemotron-h-8b-nvfp4 = teGraphs [ "attn" "mlp" ] // {
    "mixed_precision" = "bf16_with_nvfp4_mixed";
  };

  # alternative for the same model: keep mamba graphed, switch the recipe to MXFP8
  nemotron-h-8b-mxfp8 = teGraphs [ "attn" "mamba" "mlp" ] // {
    "mixed_precision" = "bf16_with_mxfp8_mixed";
  };

  # Validation: compare replay steps (after the "Time spent in CUDA Graphs capture" line)
  # with an eager run at the same seed, loss and step time; keep eval_interval small in that
  # test so a post-validation replay is exercised.
}
