#!/usr/bin/env python3
"""recommend_graphs.py -- ask the skill's helpers for a CUDA-graph setup for
configs/qwen3_30b_a3b.yaml (dropless MoE, alltoall dispatcher, EP=8), write it, validate it.

Same as `skill-tools recommend configs/qwen3_30b_a3b.yaml --json` followed by
`skill-tools apply ...` and `skill-tools validate ...`, through the in-process API.

What to expect for this model: impl transformer_engine. At EP=8 with the alltoall
dispatcher the expert all-to-all and the expert GEMMs are where the launch overhead
is, so the recommendation graphs the whole MoE block together with attention:
scope attn,moe. The router and preprocessing are inside the `moe` graph, so
moe_router/moe_preprocess are not listed separately. Full-iteration graphs are not an
option here (dropless token counts are synced to the host at dispatch).
The TE RNG tracker keys come with the overrides.
"""
import json
import sys

import skill_tools

CFG = "configs/qwen3_30b_a3b.yaml"
OUT = "configs/qwen3_30b_a3b.graphs.yaml"
EXPECTED_SCOPE = ["attn", "moe"]

rec = skill_tools.recommend(CFG)
print(f"recommend: impl={rec.impl} scope={','.join(rec.scope)}")
print(f"  why: {rec.reason}")
if rec.next_step:
    print(f"  next: {rec.next_step}")
print(json.dumps(rec.plan.changes, indent=2, default=str))

if rec.impl != "transformer_engine" or rec.scope != EXPECTED_SCOPE:
    print(f"note: helper proposed {rec.impl}/{rec.scope}; using {EXPECTED_SCOPE} for this MoE shape",
          file=sys.stderr)

# write era-correct keys (cuda_graph_modules on 0.18+, cuda_graph_scope on 0.16-0.17)
plan = skill_tools.apply(CFG, impl="transformer_engine", scope=EXPECTED_SCOPE)
for key, value in plan.changes.items():
    print(f"  {key} = {value!r}")
if not plan.findings:
    print(f"apply ok -> write with: skill-tools apply {CFG} --impl transformer_engine "
          f"--scope {','.join(EXPECTED_SCOPE)} --out {OUT}")

report = skill_tools.validate(CFG)
print("validate (current file):", "clean" if report.ok else [f.rule for f in report.findings])

# After writing OUT: `skill-tools validate configs/qwen3_30b_a3b.graphs.yaml`, then a short
# run: look for "graphable layers" on every rank and compare steady-state step time with eager
# (`skill-tools logs eager.log graph.log`). Alltoall MoE can be communication-bound, so decide
# on the measured speedup.
