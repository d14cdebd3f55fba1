"""tasks.py: CUDA-graph helper tasks for the Qwen3-30B-A3B config (run with `invoke <task>`).

What `invoke graphs` does, and what to expect from it:

* `skill-tools recommend` reads configs/qwen3_30b_a3b.yaml (dropless MoE, alltoall dispatcher,
  EP=8) and should come back with impl=transformer_engine, scope moe_router,moe_preprocess:
  expert token counts are data-dependent in dropless routing and the dispatcher syncs them to the
  host, so only the router and preprocessing are captured; experts stay eager. `attn` is a
  later A/B, not part of the first step. `moe` (whole MoE MLP) would need drop-and-pad.
* The recommended overrides are written to configs/qwen3_30b_a3b.graphs.yaml, with the TE RNG
  tracker switched on (model.use_te_rng_tracker / rng.te_rng_tracker), in the key spelling of the
  installed megatron-core (cuda_graph_modules on 0.18+, cuda_graph_scope on 0.16-0.17).
* `skill-tools validate` must exit 0 before you launch anything.

Keep seq_length and micro_batch_size fixed; compare post-capture steps with an eager run.
"""

from invoke import task

CFG = "configs/qwen3_30b_a3b.yaml"
OUT = "configs/qwen3_30b_a3b.graphs.yaml"


@task
def recommend(c):
    """Print the helper's impl/scope recommendation (JSON for scripts)."""
    c.run(f"skill-tools recommend {CFG} --json", pty=True)


@task
def apply(c):
    """Write the recommended, era-correct overrides into a copy of the config."""
    c.run(f"skill-tools apply {CFG} --recommended --out {OUT}", pty=True)


@task
def validate(c):
    """Check the result against the rule catalog; exit 1 on findings."""
    c.run(f"skill-tools validate --json {OUT}", pty=True)


@task(pre=[recommend, apply, validate])
def graphs(c):
    """recommend -> apply -> validate."""
    print(f"OK: {OUT} carries transformer_engine + moe_router,moe_preprocess; A/B it against eager next.")


@task
def ab(c):
    """GPU A/B of eager vs the graph config on this model's layer shape."""
    c.run(f"skill-tools bench --config {OUT} --out out/qwen3_30b_a3b_ab/", pty=True)
