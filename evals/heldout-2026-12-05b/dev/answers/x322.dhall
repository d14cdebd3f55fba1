-- cuda-graphs.dhall
-- Overlay for our dense GPT Bridge recipes on the pinned image (megatron-core 0.16.1).
-- Render with `dhall-to-yaml --file cuda-graphs.dhall` and merge into the recipe's
-- ConfigContainer like every other overlay in this repo.
--
-- Era note: on 0.16/0.17 the per-layer coverage list is `cuda_graph_scope`.
-- `cuda_graph_modules` (and cuda_graph_impl = "full_iteration") only exist from 0.18 on,
-- so do not copy those spellings from newer docs.
--
-- Equivalent Python, if you patch the recipe directly:
--   cfg.model.cuda_graph_impl = "transformer_engine"
--   cfg.model.cuda_graph_scope = ["attn", "mlp"]
--   cfg.model.cuda_graph_warmup_steps = 3
--   cfg.model.use_te_rng_tracker = True
--   cfg.rng.te_rng_tracker = True

let ModelGraphs =
      { cuda_graph_impl : Text
      , cuda_graph_scope : List Text
      , cuda_graph_warmup_steps : Natural
      , use_te_rng_tracker : Bool
      }

let RngGraphs = { te_rng_tracker : Bool }

let model
    : ModelGraphs
    = { cuda_graph_impl = "transformer_engine"
      , cuda_graph_scope = [ "attn", "mlp" ]
      , cuda_graph_warmup_steps = 3
      , use_te_rng_tracker = True
      }

let rng
    : RngGraphs
    = { te_rng_tracker = True }

-- Keep seq_length and micro_batch_size fixed for the whole run; graphs replay fixed shapes.
in  { model, rng }
