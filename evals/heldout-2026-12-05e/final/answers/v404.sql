-- Parity triage for the dynamic-engine decode graphs (inference_cuda_graph_scope = "block").
--
-- Short answer: the graphs are very likely fine. Eager decode steps are padded to
-- min(max_requests, round_up(n, 64)) rows (DynamicInferenceContext.round_up_tokens,
-- TOKEN_ROUNDER = 64), while a graphed step replays the smallest captured bucket that fits
-- (CUDAGraphBatchDimensionBuilder.match_graph_config). At batch 4/8 eager runs a 64-row
-- GEMM and the graph runs a 4- or 8-row GEMM; bf16 rounds differently, a near-tie between two
-- logits flips a greedy token, and the sequences drift apart after that (~token 30).
--
-- Rerun with an eager control padded to the graphs' buckets (skill-tools bench --mode inference
-- does this by default) and load the per-token results into a table like:
--
--   parity(variant TEXT,        -- 'eager', 'eager_graph_shapes', 'block'
--          trial INT,           -- repeated runs of the same variant
--          batch INT, request INT, pos INT, token INT)
--
-- Then only the query below decides whether there is a real bug.

WITH g AS (SELECT * FROM parity WHERE variant = 'block'),
     c AS (SELECT * FROM parity WHERE variant = 'eager_graph_shapes'),
     e AS (SELECT * FROM parity WHERE variant = 'eager')
SELECT
  g.batch,
  g.request,
  MIN(g.pos) FILTER (WHERE g.token <> c.token)  AS first_mismatch_vs_same_shape,  -- REAL BUG if not NULL
  MIN(g.pos) FILTER (WHERE g.token <> e.token)  AS first_mismatch_vs_plain_eager, -- informational only
  BOOL_OR(g.pos = 0 AND g.token <> e.token)     AS differs_at_first_token         -- REAL BUG if true
FROM g
JOIN c USING (trial, batch, request, pos)
JOIN e USING (trial, batch, request, pos)
GROUP BY g.batch, g.request
ORDER BY g.batch, g.request;

-- Reading the result:
--   * first_mismatch_vs_plain_eager at batch 4/8 with first_mismatch_vs_same_shape NULL:
--     expected padded-shape rounding, nothing to fix.
--   * first_mismatch_vs_same_shape NOT NULL, or differs_at_first_token: a real capture/replay bug.
--   * Differences between trial 0 and trial 1 of the same 'block' variant are normal bf16
--     nondeterminism (atomics, split-K ordering) and can be ignored. That is why the query joins
--     on trial instead of comparing trials with each other.
--
-- If you'd rather not rely on tokens at all, dump logits per step and compare with a tolerance
-- (e.g. allclose in fp32) instead of argmax equality.
