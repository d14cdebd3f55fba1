-- overrides/llama70b_graphs_recompute.lua
-- Override table read by our launcher (each key becomes a Hydra-style key=value override).
--
-- Diagnosis
--   "full recompute is only supported with full iteration CUDA graph." comes from the
--   uniform recompute path: with recompute_method="uniform" and recompute_num_layers=1,
--   EVERY layer is split into its own checkpoint chunk, so every TE-graphed attention
--   block would sit inside a recompute region, and MCore refuses that for per-layer
--   graphs.
--
-- Fix (keeps both memory savings and the TE attention graphs)
--   Switch to block recompute: with recompute_method="block", only the first
--   recompute_num_layers layers of each pipeline stage are recomputed and the remaining
--   layers run normally, so the graphed attention of those layers is not wrapped.
--   Pick recompute_num_layers as the smallest value that fits memory; start high and
--   lower it while the run still fits.

local M = {}

M.model = {
  -- recompute: same granularity, block method instead of uniform
  recompute_granularity = "full",
  recompute_method      = "block",
  recompute_num_layers  = 40,          -- layers per PP stage to recompute; tune for memory

  -- TE-scoped graphs (megatron-core 0.18+ keys; on 0.16/0.17 use cuda_graph_scope = {"attn"})
  cuda_graph_impl         = "transformer_engine",
  cuda_graph_scope        = "null",    -- clear the recipe's legacy key
  cuda_graph_modules      = { "attn" },
  cuda_graph_warmup_steps = 3,
  use_te_rng_tracker      = true,
}

M.rng = {
  te_rng_tracker = true,               -- graph-safe RNG, required with any CUDA graph
}

-- Notes
--  * attention dropout must stay 0 if attention ends up inside a recompute region
--    ("attention dropout is not supported with graphed attention recomputation.").
--  * Static shapes: fixed seq_length and micro-batch size.
--  * Compare replay steps after the capture step with the eager run that uses the same
--    recompute settings.

return M
