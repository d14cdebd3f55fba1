"""cg_launch.py: enable TE-scoped CUDA graphs (attention + MLP) on a dense GPT Bridge recipe.

Pinned stack: Megatron Bridge + megatron-core 0.16.1.

Usage (Python Fire exposes each function as a sub-command):

    torchrun --nproc-per-node 8 cg_launch.py show
    torchrun --nproc-per-node 8 cg_launch.py train --warmup_steps=3
    torchrun --nproc-per-node 8 cg_launch.py train --graphs=False      # eager A/B baseline

Notes
-----
* impl = "transformer_engine": TE make_graphed_callables, one graph per layer region.
* Coverage list: ["attn", "mlp"] puts the attention block and the dense MLP of every layer in a graph.
* Graph-safe RNG: TE's RNG tracker must be on (model + rng sections).
* Keep seq_length / micro_batch_size fixed; compare post-capture iterations with eager.
"""

import fire

from megatron.bridge.recipes.llama import llama3_8b_pretrain_config
from megatron.bridge.training.gpt_step import forward_step
from megatron.bridge.training.pretrain import pretrain
from megatron.bridge.training.utils.omegaconf_utils import process_config_with_overrides


def _cuda_graph_overrides(warmup_steps: int = 3) -> list[str]:
    return [
        "model.cuda_graph_impl=transformer_engine",
        "model.cuda_graph_modules=[attn,mlp]",
        f"model.cuda_graph_warmup_steps={warmup_steps}",
        "model.use_te_rng_tracker=true",
        "rng.te_rng_tracker=true",
    ]


def _build(graphs: bool = True, warmup_steps: int = 3, extra: tuple = ()):
    cfg = llama3_8b_pretrain_config()
    overrides = list(extra)
    if graphs:
        overrides += _cuda_graph_overrides(warmup_steps)
    else:
        overrides += ["model.cuda_graph_impl=none"]
    return process_config_with_overrides(cfg, cli_overrides=overrides)


def show(graphs: bool = True, warmup_steps: int = 3):
    """Print the CUDA-graph related fields after overrides."""
    cfg = _build(graphs, warmup_steps)
    for key in ("cuda_graph_impl", "cuda_graph_modules", "cuda_graph_warmup_steps", "use_te_rng_tracker"):
        print(f"model.{key} = {getattr(cfg.model, key, None)!r}")
    print(f"rng.te_rng_tracker = {cfg.rng.te_rng_tracker!r}")


def train(graphs: bool = True, warmup_steps: int = 3, *extra):
    """Run pretraining; pass extra Hydra overrides positionally (e.g. train.train_iters=50)."""
    cfg = _build(graphs, warmup_steps, extra)
    pretrain(config=cfg, forward_step_func=forward_step)


if __name__ == "__main__":
    fire.Fire({"show": show, "train": train})
