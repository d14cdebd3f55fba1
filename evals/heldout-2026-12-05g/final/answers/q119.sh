#!/usr/bin/env bash
# pick_graph_recompute.sh — choose how to combine activation recompute with CUDA graphs
# for the 70B dense Bridge run, then launch with the matching overrides.
#
# Why the current config dies:
#   recompute_granularity="full" wraps the WHOLE transformer layer in a checkpoint region.
#   A TE-scoped graph (cuda_graph_impl="transformer_engine", attn) sits inside that layer,
#   and a recompute region must not wrap a graphed region (the backward would re-run the
#   captured attention eagerly outside its graph). MCore therefore only allows full
#   recompute with a full-iteration graph:
#     "full recompute is only supported with full iteration CUDA graph."
#   recompute_method / recompute_num_layers don't matter: any granularity other than
#   "selective" hits this assert.
#
# Usage: TRAIN_CMD="torchrun --nproc-per-node 8 my_pretrain_70b.py" ./pick_graph_recompute.sh
#        (TRAIN_CMD must accept Hydra-style key=value overrides)
#        MCORE=0.16 ./pick_graph_recompute.sh   for a 0.16/0.17 image (default: 0.18+ keys)

set -euo pipefail
: "${TRAIN_CMD:?set TRAIN_CMD to your Bridge launch command}"
MCORE="${MCORE:-0.19}"

COMMON=(
  model.cuda_graph_warmup_steps=3
  model.use_te_rng_tracker=true
  rng.te_rng_tracker=true
)

PS3="Which trade-off? "
select choice in \
  "A: TE attn graphs + selective recompute of the MLP (outside the graph)" \
  "B: keep full recompute + full-iteration graph (NaN checks off)" \
  "quit"; do
  case "$REPLY" in
    1)
      # Memory saving comes from recomputing the MLP, which is NOT graphed; attention is graphed.
      # recompute_method / recompute_num_layers must be null with selective granularity.
      if [[ "$MCORE" == 0.16* || "$MCORE" == 0.17* ]]; then
        GRAPH=(model.cuda_graph_impl=transformer_engine "model.cuda_graph_scope=[attn]")
      else
        GRAPH=(model.cuda_graph_impl=transformer_engine model.cuda_graph_scope=null "model.cuda_graph_modules=[attn]")
      fi
      RECOMP=(
        model.recompute_granularity=selective
        "model.recompute_modules=[mlp]"
        model.recompute_method=null
        model.recompute_num_layers=null
      )
      echo "note: do not add core_attn to recompute_modules while attn is graphed if attention_dropout != 0"
      echo "      ('attention dropout is not supported with graphed attention recomputation.')"
      echo "note: saves less than full recompute; re-check memory at the 70B shape (more TP/PP if needed)"
      break ;;
    2)
      # Whole-iteration graph: full recompute is allowed here. No host syncs inside the graph.
      if [[ "$MCORE" == 0.16* || "$MCORE" == 0.17* ]]; then
        GRAPH=(model.cuda_graph_impl=local "model.cuda_graph_scope=[full_iteration]")
      else
        GRAPH=(model.cuda_graph_impl=full_iteration model.cuda_graph_scope=null "model.cuda_graph_modules=[]")
      fi
      RECOMP=(
        model.recompute_granularity=full
        model.recompute_method=uniform
        model.recompute_num_layers=1
        rerun_state_machine.check_for_nan_in_loss=false
        ddp.check_for_nan_in_grad=false
      )
      echo "note: the full-iteration graph keeps the iteration's activations in its own pool;"
      echo "      leave memory headroom and keep seq_length / micro-batch size static"
      break ;;
    3) exit 0 ;;
    *) echo "pick 1, 2 or 3" ;;
  esac
done

echo "+ $TRAIN_CMD ${GRAPH[*]} ${RECOMP[*]} ${COMMON[*]}"
# Compare steady-state replay steps after the capture step with the eager run of the same
# recompute settings; the capture step itself is not a timing sample.
exec $TRAIN_CMD "${GRAPH[@]}" "${RECOMP[@]}" "${COMMON[@]}"
