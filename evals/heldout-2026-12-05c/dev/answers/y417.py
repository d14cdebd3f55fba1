"""noxfile.py -- "do CUDA graphs speed up configs/small_gpt.sh on this one H200?"

    nox -s plan        # what will run: your layer shape fitted to this GPU, every change printed
    nox -s precheck    # is the eager step launch-bound at all?
    nox -s graphs_ab   # the measurement

How to read graphs_ab (out/graphs_ab/*.json, `variants[]`):
  * every variant runs Megatron-LM's own pretrain() on your config's layer shape, eager first;
    warmup iterations and the capture iteration are excluded from the timing, because the capture
    step is many times slower than a steady one (it is reported separately as capture_step_ms);
  * step time is the median of repeated timed iterations, and speedup_vs_eager comes with a
    bootstrap 95% confidence interval;
  * verdict: a speedup only if the CI's lower bound is above 1.0. A CI that spans 1.0 means "no
    measurable speedup" -> leave cuda_graph_impl=none. Never judge from one iteration or one trial;
  * also read captured / replayed (a variant that did not replay proves nothing), loss_max_abs_delta
    (loss parity with eager, same seed) and max alloc MB (graphs keep static buffers + a private pool).

precheck profiles the eager step: a large host-gap fraction (GPU idle between kernels) is what graphs
remove; a GPU that is already busy will not get faster however clean the capture is.
"""

import nox

CONFIG = "configs/small_gpt.sh"
OUT = "out/graphs_ab"


@nox.session(python=False)
def plan(session):
    session.run("skill-tools", "bench", "--config", CONFIG, "--dry-run")


@nox.session(python=False)
def precheck(session):
    session.run("skill-tools", "precheck", "--workload", "dense", "--size", "small", "--json")


@nox.session(python=False)
def graphs_ab(session):
    # eager vs the graph variants (your own graph settings and what `recommend` proposes), same seed
    session.run("skill-tools", "bench", "--config", CONFIG, "--out", OUT, "--json")
