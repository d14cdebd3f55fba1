// cuda_graph_presets.libsonnet
// TE-scoped CUDA graph presets per architecture (megatron-core >= 0.18: cuda_graph_modules;
// for 0.16/0.17 rename the field to cuda_graph_scope).
//
// How scopes map: the TE graph helper decides per layer which module types to capture.
// Attention-type token mixers go under "attn"; recurrent/state-space token mixers go under "mamba".
//  - Qwen3.5: full-attention layers + Gated DeltaNet (GDN) linear-attention layers. GDN is a
//    state-space-style recurrent mixer (conv1d + gated delta-rule scan, same family as Mamba-2),
//    so those layers are captured with the "mamba" scope; the standard attention layers with "attn".
//  - Nemotron-H: real Mamba-2 layers -> "mamba", plus its few attention layers -> "attn".
//
// NVFP4 + "mamba" scope: illegal memory access after validation has been reported
// (TransformerEngine#3316). Until you are on a fixed TE, drop "mamba" from the scope or train the
// hybrid in MXFP8 instead of NVFP4.

local base = {
  cuda_graph_impl: 'transformer_engine',
  cuda_graph_warmup_steps: 3,
  use_te_rng_tracker: true,
};

local rng = { te_rng_tracker: true };

{
  qwen3_5:: {
    model: base {
      cuda_graph_modules: ['attn', 'mamba'],   // attn = full-attention layers, mamba = GDN layers
    },
    rng: rng,
  },

  qwen3_5_moe:: {
    model: base {
      cuda_graph_modules: ['attn', 'mamba', 'moe_router', 'moe_preprocess'],
    },
    rng: rng,
  },

  nemotron_h:: {
    model: base {
      cuda_graph_modules: ['attn', 'mamba'],
    },
    rng: rng,
  },

  // NVFP4 workaround for the TE#3316 IMA: keep attention graphs, leave Mamba/GDN layers eager
  nemotron_h_nvfp4:: {
    model: base {
      cuda_graph_modules: ['attn'],
    },
    rng: rng,
  },
}

// usage:
//   local p = import 'cuda_graph_presets.libsonnet';
//   std.manifestYamlDoc(p.qwen3_5)  -> merge into the Bridge YAML
// Then confirm replay in the logs and compare post-capture step times against an eager run.
