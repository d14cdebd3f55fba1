-- modulefiles/mixtral-graphs/1.0.lua
-- `module load mixtral-graphs/1.0` before launching the PP=8 TE-graph run.
--
-- Why eager fits at 40% HBM but TE graphs OOM in make_graphed_callables:
--   With PP > 1 Megatron's TECudaGraphHelper captures one graph per graphed layer *per
--   micro-batch of the step* (it only drops to a single micro-batch when PP == 1).
--   Mixtral: 32 layers / PP 8 = 4 layers per stage; GBS 128 / (MBS 1 * DP 1) = 128
--   micro-batches -> 4 x 128 = 512 attn graphs per stage, each holding static input/output/
--   grad buffers and a slice of the graph pool for the whole run. Eager only ever holds
--   <= PP micro-batches of activations. That difference is your OOM.
--
-- How to fit (do these first, they are the real fix):
--   * fewer micro-batches: MBS 2-4, or smaller GBS -> 2-4x fewer graphs
--   * TE >= 2.7 with a current MCore: make_graphed_callables reuses input/output buffers
--     between graphs (_reuse_graph_input_output_buffers; TE PR #3427 saves more with VPP)
--   * keep the scope at attn only; no VPP for this run
--   * graphs need headroom: if it still does not fit, run this layout eager
--
-- The allocator part below reduces the fragmentation the capture pool causes.

whatis("Env for Mixtral PP=8 TE CUDA-graph runs")

setenv("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True")
setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1")
setenv("NVTE_FWD_LAYERNORM_SM_MARGIN", "0")
setenv("NVTE_BWD_LAYERNORM_SM_MARGIN", "0")

-- launcher hint printed on load
if (mode() == "load") then
  LmodMessage("mixtral-graphs: use MBS>=2 (or lower GBS) to cut the per-micro-batch graph count")
end
