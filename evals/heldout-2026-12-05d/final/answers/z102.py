"""
Prefect flow: Llama 3.1 8B on 8xH100 with TE-scoped CUDA graphs (megatron-core 0.19, Megatron Bridge).

Answer in short:
  * Profile eager first; only bother if the timeline shows host/launch gaps.
  * Dense model -> start with cuda_graph_impl="transformer_engine", cuda_graph_modules=["attn"],
    then A/B ["attn", "mlp"].
  * Keep seq_length (8192) and micro-batch size (1) static.
  * Compare post-capture iterations against eager; never the capture step.
  * RNG: TE-scoped graphs handle RNG state inside make_graphed_callables, so the TE RNG tracker
    (use_te_rng_tracker / rng.te_rng_tracker) is only needed for the local / full_iteration
    implementations. Leave it at the recipe default here.

Run:  python llama31_8b_graphs_flow.py
"""
import subprocess
import textwrap
from pathlib import Path

from prefect import flow, task

TRAIN_SCRIPT = textwrap.dedent(
    '''
    from megatron.bridge.recipes.llama import llama31_8b_pretrain_config
    from megatron.bridge.training.gpt_step import forward_step
    from megatron.bridge.training.pretrain import pretrain

    cfg = llama31_8b_pretrain_config()

    # static shapes
    cfg.model.seq_length = 8192
    cfg.dataset.seq_length = 8192
    cfg.train.micro_batch_size = 1
    cfg.model.tensor_model_parallel_size = 1
    cfg.model.pipeline_model_parallel_size = 1

    # CUDA graphs: TE per-layer capture, attention first
    cfg.model.cuda_graph_impl = "{impl}"
    cfg.model.cuda_graph_scope = None       # stock recipe sets "full"; cannot coexist with modules on 0.18+
    cfg.model.cuda_graph_modules = {modules}
    cfg.model.cuda_graph_warmup_steps = 3

    cfg.train.train_iters = 40
    cfg.logger.log_interval = 1

    pretrain(cfg, forward_step)
    '''
)


@task
def write_script(impl: str, modules: list[str], tag: str) -> Path:
    path = Path(f"train_{tag}.py")
    path.write_text(TRAIN_SCRIPT.format(impl=impl, modules=modules))
    return path


@task
def launch(script: Path, tag: str) -> Path:
    log = Path(f"{tag}.log")
    with log.open("w") as fh:
        subprocess.run(
            ["torchrun", "--nproc-per-node", "8", str(script)],
            stdout=fh, stderr=subprocess.STDOUT, check=True,
        )
    return log


@task
def steady_state_ms(log: Path, first_iter: int = 10) -> float:
    """Mean 'elapsed time per iteration (ms)' from iteration `first_iter` on (skips warmup + capture)."""
    vals = []
    for line in log.read_text().splitlines():
        if "elapsed time per iteration (ms):" in line and " iteration " in line:
            it = int(line.split(" iteration ")[1].split("/")[0])
            if it >= first_iter:
                vals.append(float(line.split("elapsed time per iteration (ms):")[1].split("|")[0]))
    return sum(vals) / max(len(vals), 1)


@flow(name="llama31-8b-cuda-graphs-ab")
def ab_flow():
    eager = launch(write_script("none", [], "eager"), "eager")
    attn = launch(write_script("transformer_engine", ["attn"], "te_attn"), "te_attn")
    attn_mlp = launch(write_script("transformer_engine", ["attn", "mlp"], "te_attn_mlp"), "te_attn_mlp")
    e, a, am = steady_state_ms(eager), steady_state_ms(attn), steady_state_ms(attn_mlp)
    print(f"eager {e:.1f} ms | TE attn {a:.1f} ms ({e / a:.2f}x) | TE attn+mlp {am:.1f} ms ({e / am:.2f}x)")
    print("Keep the narrowest scope that wins; if neither wins, leave cuda_graph_impl='none'.")


if __name__ == "__main__":
    ab_flow()
