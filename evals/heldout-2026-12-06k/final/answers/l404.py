"""parity_probe.py - is my decode CUDA graph actually wrong, or is it shape-dependent bf16 rounding?

Context (megatron-core 0.19, dynamic engine, inference_cuda_graph_scope="block"):
  * eager decode pads a decode-only step to
        min(max_tokens, max_requests, round_up_tokens(n_active))   # TOKEN_ROUNDER = 64
    (DynamicInferenceContext.initialize_attention_state)
  * a graphed decode step replays the smallest captured bucket that fits
        CUDAGraphBatchDimensionBuilder.match_graph_config(...) -> min(applicable)
  So at batch 4/8 the two runs do GEMMs with different M. bf16 rounds differently, a greedy
  near-tie flips, and the sequences part ways ~tens of tokens later. That is expected.

The check that matters is graph vs eager *at the same padded shape*, plus a logits tolerance.
Real bugs look like: mismatch at equal shapes, mismatch at the FIRST generated token, or two
runs of the same variant disagreeing.

Fastest route if you have the skill helper installed (the same-shape eager control is on by default):
    skill-tools bench --mode inference --workload tiny-gpt --batch-sizes 1,4,8,16,32 \
        --inference-scope none,block --decode-tokens 64
Below is the same idea as a standalone probe over your own token/logit dumps.
"""
import json
import sys

import torch


def first_divergence(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None


def near_tie(logits_step, k=2, rel_tol=2e-2):
    """True when the top-2 logits are within bf16 noise of each other."""
    top = torch.topk(logits_step.float(), k).values
    return (top[0] - top[1]).abs() <= rel_tol * top[0].abs().clamp_min(1.0)


def classify(run_graph, run_eager_same_shape, run_eager_natural, run_graph_repeat):
    """Each run: {"tokens": {req_id: [ids]}, "logits": {req_id: tensor[T, V]}}."""
    verdicts = {}
    for rid, g_tok in run_graph["tokens"].items():
        if run_graph_repeat["tokens"][rid] != g_tok:
            verdicts[rid] = "BUG: graphed run not reproducible"
            continue
        d_same = first_divergence(g_tok, run_eager_same_shape["tokens"][rid])
        if d_same is not None:
            verdicts[rid] = f"BUG: differs from same-shape eager at token {d_same}"
            continue
        d_nat = first_divergence(g_tok, run_eager_natural["tokens"][rid])
        if d_nat is None:
            verdicts[rid] = "identical"
        elif d_nat == 0:
            verdicts[rid] = "BUG: differs at first generated token"
        else:
            tie = near_tie(run_eager_natural["logits"][rid][d_nat])
            verdicts[rid] = (f"shape-dependent rounding (near-tie={bool(tie)}) at token {d_nat}; "
                             "matches eager at equal padded shape")
    return verdicts


if __name__ == "__main__":
    runs = [torch.load(p) for p in sys.argv[1:5]]  # graph, eager_padded, eager, graph_repeat
    print(json.dumps(classify(*runs), indent=2))
