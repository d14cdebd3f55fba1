#!/bin/bash
#PBS -N gpt-te-graphs-mcore0161
#PBS -l select=1:ncpus=64:ngpus=8
#PBS -l walltime=02:00:00
#PBS -j oe
#
# TE-scoped CUDA graphs (attention + MLP) for a dense GPT, Megatron Bridge on the
# pinned megatron-core 0.16.1.
#
# Era note: 0.16.x / 0.17.x only know the list key `cuda_graph_scope`.
# `cuda_graph_modules` and cuda_graph_impl="full_iteration" arrive in 0.18 --
# do not copy them from newer examples, 0.16.1 will not accept them.
#
# The exact lines, if you edit the recipe in Python instead of overriding:
#   cfg.model.cuda_graph_impl = "transformer_engine"
#   cfg.model.cuda_graph_scope = ["attn", "mlp"]
#   cfg.model.cuda_graph_warmup_steps = 3
#   cfg.model.use_te_rng_tracker = True
#   cfg.rng.te_rng_tracker = True
#
# Requirements the graphs rely on:
#   - static shapes: seq_length and micro_batch_size fixed for the whole run
#   - the model is dense (mlp scope is refused on a model whose layers are all MoE)
#   - measure steady-state iterations after capture (iteration > warmup), not the capture step

set -euo pipefail
cd "$PBS_O_WORKDIR"

python -c "import megatron.core as m; assert m.__version__.startswith('0.16'), m.__version__"

RECIPE=${RECIPE:-llama3_8b_pretrain_config}

GRAPH_OVERRIDES=(
  model.cuda_graph_impl=transformer_engine
  "model.cuda_graph_scope=[attn,mlp]"
  model.cuda_graph_warmup_steps=3
  model.use_te_rng_tracker=true
  rng.te_rng_tracker=true
)

torchrun --nproc_per_node=8 scripts/training/run_recipe.py \
  --recipe "$RECIPE" \
  train.train_iters=50 \
  "${GRAPH_OVERRIDES[@]}" \
  2>&1 | tee "graphs_${PBS_JOBID}.log"
