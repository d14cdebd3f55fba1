# parity_check.py -- is inference_cuda_graph_scope="block" actually wrong, or is it shape noise?
#
# Short answer to the question: your decode graphs are very likely fine.
# In megatron-core 0.19 the dynamic context pads an *eager* decode step to
#     min(max_tokens, max_requests, round_up_tokens(n))      # TOKEN_ROUNDER = 64
# (dynamic_context.py, DynamicInferenceContext.initialize_attention_state),
# while a graphed step replays the smallest captured bucket that fits
# (batch_dimensions_utils.py, match_graph_config -> min(applicable)).
# Batch 4 eager = 64-row GEMM, batch 4 graphed = 8/16-row GEMM.  bf16 rounding
# differs, a near-tie between the top-2 logits flips a greedy token, and from then
# on the two sequences diverge.  That is not a replay bug.
#
# The fair comparison is at EQUAL padded shape, or on logits with a tolerance.
# This script does the logit comparison; feed it the per-step logits you dump
# from both runs (same prompts, same sampling params, greedy).

import sys
import torch

ATOL = 5e-2   # bf16 GEMM noise; tighten if you compare at equal shapes


def first_divergence(tokens_a, tokens_b):
    for i, (a, b) in enumerate(zip(tokens_a, tokens_b)):
        if a != b:
            return i
    return None


def check(eager_dump, graph_dump, label):
    ea, ga = torch.load(eager_dump), torch.load(graph_dump)
    for rid in ea:
        te, tg = ea[rid]["tokens"], ga[rid]["tokens"]
        k = first_divergence(te, tg)
        if k is None:
            continue
        if k == 0:
            print(f"[{label}] req {rid}: differs at FIRST token -> real bug, report it")
            continue
        le, lg = ea[rid]["logits"][k].float(), ga[rid]["logits"][k].float()
        top2 = le.topk(2).values
        gap = (top2[0] - top2[1]).item()
        diff = (le - lg).abs().max().item()
        verdict = "near-tie flip (benign)" if gap < 2 * diff or diff < ATOL else "SUSPICIOUS"
        print(f"[{label}] req {rid}: first diff at step {k}, top2 gap {gap:.4f}, "
              f"max|dlogit| {diff:.4f} -> {verdict}")


if __name__ == "__main__":
    # 1) graph vs. eager padded to the SAME bucket: must match token for token.
    # 2) graph vs. graph (repeat run): must match token for token.
    # 3) graph vs. plain eager: differences here are expected; judge them by logits.
    eager_same_shape, graph_run1, graph_run2, eager_plain = sys.argv[1:5]
    check(eager_same_shape, graph_run1, "equal-shape")   # any mismatch here = bug
    check(graph_run1, graph_run2, "repeat")               # any mismatch here = bug
    check(eager_plain, graph_run1, "plain-eager")         # tolerance judgement only
