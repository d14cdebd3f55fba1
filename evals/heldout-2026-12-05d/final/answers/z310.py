# Databricks notebook source
# MAGIC %md
# MAGIC # Qwen3-235B: NaN at ~iter 90 only with CUDA graphs
# MAGIC
# MAGIC Setup: TP2 PP8 VPP4 EP8, `overlap_moe_expert_parallel_comm`, TE per-layer graphs on `attn`.
# MAGIC Removing the graph flags fixes it, so treat it as a **graph-replay numerics** problem:
# MAGIC a correct replay changes no math, so divergence that only happens with graphs means replay
# MAGIC used stale/misordered buffers or the schedule interleaved differently than at capture.
# MAGIC
# MAGIC Known causes that fit this setup:
# MAGIC * per-layer TE graphs + EP-overlap schedule (Megatron-LM#5966, open: Qwen3-235B, `attn` graphs, NaN ~iter 91)
# MAGIC * parameter/graph order under PP 1F1B interleaving (Megatron-LM#422, TE PRs #1138/#1233)
# MAGIC * wgrad-accumulation flags not toggled on replay (TE PR #1204)
# MAGIC * FSDP hooks captured in the wrong phase (TE PR #2831), validation replaying training graphs (Megatron-LM PR #6992)

# COMMAND ----------

# MAGIC %md
# MAGIC ## 1. Arms (same seed, same data order, same container; only graph flags change)

# COMMAND ----------

BASE = "bash /Workspace/Repos/llm/train_qwen3_235b.sh --seed 1234 --train-iters 120 --log-interval 1 --te-rng-tracker"
ARMS = {
    "A_eager":          "--cuda-graph-impl none --overlap-moe-expert-parallel-comm",
    "B_attn_overlap":   "--cuda-graph-impl transformer_engine --cuda-graph-modules attn --overlap-moe-expert-parallel-comm",
    "C_attn_nooverlap": "--cuda-graph-impl transformer_engine --cuda-graph-modules attn",
    "D_router_overlap": "--cuda-graph-impl transformer_engine --cuda-graph-modules moe_router moe_preprocess --overlap-moe-expert-parallel-comm",
}
# Note: with EP overlap, MCore refuses `moe`/`mlp` in TE graph modules, so they are not arms.
for name, flags in ARMS.items():
    print(f"{name}: {BASE} {flags}")

# COMMAND ----------

# MAGIC %md
# MAGIC ## 2. Compare loss and grad-norm curves step by step

# COMMAND ----------

import re
import pandas as pd

pat = re.compile(r"iteration\s+(\d+)/.*?lm loss: (\S+) .*?grad norm: (\S+) ")

def curve(path):
    rows = [(int(i), float(l), float(g)) for i, l, g in pat.findall(open(path).read())]
    return pd.DataFrame(rows, columns=["iter", "loss", "grad_norm"]).set_index("iter")

ref = curve("/dbfs/runs/A_eager.log")
for arm in ["B_attn_overlap", "C_attn_nooverlap", "D_router_overlap"]:
    c = curve(f"/dbfs/runs/{arm}.log")
    gap = (c.grad_norm - ref.grad_norm).abs()
    print(arm, "max |Δgrad_norm|:", gap.max(), "first NaN:", c.index[c.loss.isna()].min())

# COMMAND ----------

# MAGIC %md
# MAGIC ## 3. Fix
# MAGIC
# MAGIC * **Upgrade TE and megatron-core** to the newest matching pair first; several of the fixes above are TE-side. Re-run arms A/B.
# MAGIC * The wgrad path is the usual culprit when `attn` is graphed under VPP: TE's fused wgrad accumulation writes
# MAGIC   into `main_grad` with flags that were baked in at capture (TE PR #1204). Take that path out of the picture:
# MAGIC   **turn off gradient accumulation fusion** so weight gradients are accumulated by the regular autograd path
# MAGIC   instead of TE's fused kernel:
# MAGIC
# MAGIC   ```
# MAGIC   --no-gradient-accumulation-fusion        # Bridge: cfg.model.gradient_accumulation_fusion = False
# MAGIC   ```
# MAGIC * If B still diverges while C is clean → it's the graph × EP-overlap interaction (#5966): drop `attn` from the
# MAGIC   modules (arm D) or set `cuda_graph_impl=none` for this combination until it is fixed upstream.
# MAGIC * Keep the A/B loss-curve comparison as a regression check on every TE/MCore upgrade.
