#!/usr/bin/env python3
"""recommend_graphs.py - what I ran for configs/qwen3_30b_a3b.yaml, kept as a script so you can re-run it.

Steps:
  1. `skill-tools recommend --json` on the config (reads the MoE settings: dropless, alltoall, EP=8,
     and the installed megatron-core era);
  2. `skill-tools apply` to write the era-correct keys and companions (TE RNG tracker, NaN checks)
     into a copy of the config;
  3. `skill-tools validate` on the result.

Expected recommendation for this model: the full-iteration graph (`cuda_graph_impl=full_iteration`
on 0.18+, `local` + `cuda_graph_scope=[full_iteration]` on 0.16-0.17). A dropless alltoall MoE
step is dominated by the many small dispatch/permute/router kernels around the experts, and full
iteration is the only option that puts the dispatcher inside the graph as well, so it removes the
most launch overhead. `apply` also turns the NaN-in-loss/grad checks off, which full iteration
requires. After this, A/B it against eager (`skill-tools logs eager.log graph.log`).
"""
import json
import subprocess
import sys

CFG = "configs/qwen3_30b_a3b.yaml"
OUT = "configs/qwen3_30b_a3b.graphs.yaml"


def run(*args: str) -> subprocess.CompletedProcess:
    print("$", " ".join(args), file=sys.stderr)
    return subprocess.run(args, capture_output=True, text=True)


rec = run("skill-tools", "recommend", CFG, "--json")
if rec.returncode == 2:
    sys.exit(rec.stdout or rec.stderr)
report = json.loads(rec.stdout)
print(f"recommend: impl={report['impl']} scope={report['scope']}  ({report['mcore_version']})")
print(f"  why: {report['reason']}")
for key, value in report["overrides"].items():
    print(f"  {key}={value}")

impl = report["impl"]  # full_iteration for this config
scope = ",".join(report["scope"] or [])
apply_args = ["skill-tools", "apply", CFG, "--impl", impl, "--out", OUT]
if scope:
    apply_args += ["--scope", scope]
applied = run(*apply_args)
print(applied.stdout, end="")
if applied.returncode != 0:
    sys.exit(applied.stderr or "apply refused the result")

check = run("skill-tools", "validate", OUT, "--json")
findings = json.loads(check.stdout)["findings"]
errors = [f for f in findings if f["severity"] == "error"]
for f in findings:
    print(f"  {f['severity']}: [{f['rule']}] {f['message']}")
sys.exit(1 if errors else 0)
