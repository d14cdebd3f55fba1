"""Engine ``bridge``: Megatron Bridge's own ``pretrain`` for one variant (GPU subprocess).

Run as ``torchrun -m skill_tools.harness.engines.bridge --sidecar OUT.json [--layer-spec te|local]
-- <Hydra overrides>``. What this module does is what a user's Bridge training script does:

1. a recipe: :func:`skill_tools.rules.bridge_recipe.tiny_gpt_recipe` (Bridge's ``ConfigContainer``,
   ``GPTModelProvider``, mock ``GPTDatasetConfig``, NullTokenizer, as Bridge's ``vanilla_gpt``
   recipe builds them);
2. the overrides after ``--``, unchanged, through Bridge's
   ``omegaconf_utils.process_config_with_overrides`` (what ``scripts/training/run_recipe.py`` does
   via ``recipe_runner.apply_cli_overrides``): OmegaConf + Hydra's override parser judge them;
3. ``megatron.bridge.training.pretrain.pretrain(cfg, gpt_step.forward_step)``, which runs
   ``runtime_config_update`` / ``ConfigContainer.validate()``, builds the model through
   ``GPTModelProvider.provide()`` (its graph asserts) and trains with ``train.py``'s capture path
   (``TECudaGraphHelper``, ``FullCudaGraphWrapper``, ``_delete_cuda_graphs`` at the end).

Observed without changing Bridge's code path (:mod:`skill_tools.harness.engines.observe`,
shared with engine ``megatron-lm``): every ``torch.cuda.CUDAGraph`` capture and replay; CUDA-event times around each call of
Bridge's own ``train_step`` (``train()`` looks the module attribute up at call time, train.py
l.231); whether ``_delete_cuda_graphs`` ran and whether a full-iteration graph existed then; the
graph settings Bridge's config held before and after ``pretrain``; peak memory and versions. The
sidecar is written at exit by rank 0. With ``--layer-spec local`` the provider's
``transformer_layer_spec`` field is set to Bridge's own ``local_layer_spec`` (gpt_provider.py).
"""

from __future__ import annotations

from typing import Any

import torch  # noqa: F401 - before Transformer Engine, which loads against the torch already imported

from skill_tools.harness.engines import observe

_STATE: dict[str, Any] = observe.STATE
GRAPH_FIELDS = ("cuda_graph_impl", "cuda_graph_modules", "cuda_graph_scope", "use_te_rng_tracker",
                "cuda_graph_warmup_steps")


def _graph_settings(cfg: Any) -> dict[str, Any]:
    from skill_tools.config.model import plain

    out = {f"model.{k}": plain(getattr(cfg.model, k, None)) for k in GRAPH_FIELDS if hasattr(cfg.model, k)}
    out["rng.te_rng_tracker"] = getattr(cfg.rng, "te_rng_tracker", None)
    out["rerun_state_machine.check_for_nan_in_loss"] = getattr(cfg.rerun_state_machine, "check_for_nan_in_loss", None)
    return out


def _watch_teardown() -> None:
    """Record that Bridge's own ``_delete_cuda_graphs`` ran, and what it found to delete."""
    import megatron.bridge.training.train as train_mod
    from megatron.core.full_cuda_graph import FullCudaGraphWrapper

    orig = train_mod._delete_cuda_graphs

    def _delete_cuda_graphs(cuda_graph_helper):
        _STATE["teardown"] = {
            "called": True,
            # the class dict always holds the key ({'training': None, ...}, full_cuda_graph.py l.142 @core_v0.19.0)
            "full_iteration_graph_present": (getattr(FullCudaGraphWrapper, "cuda_graph", None) or {}).get("training")
            is not None,
            "te_helper": type(cuda_graph_helper).__name__ if cuda_graph_helper is not None else None,
            "te_graphs_created": bool(cuda_graph_helper is not None and cuda_graph_helper.graphs_created()),
        }
        return orig(cuda_graph_helper)

    train_mod._delete_cuda_graphs = _delete_cuda_graphs


def _options(parser) -> None:
    parser.add_argument("--layer-spec", choices=("te", "local"), default="te")
    parser.add_argument("--activation-func", choices=("gelu", "silu", "relu"),
                        help="bench --config: torch.nn.functional.<name> as the provider's activation_func")


def main(argv: list[str] | None = None) -> int:
    parsed = observe.engine_arguments(
        "skill_tools.harness.engines.bridge", "Hydra overrides", argv,
        configure=_options)
    if parsed is None:
        return 2
    opts, overrides = parsed

    def body() -> None:
        observe.skip_make_when_compiled()
        _STATE["phase"] = "import"
        from megatron.bridge.training.gpt_step import forward_step
        from megatron.bridge.training.pretrain import pretrain
        from megatron.bridge.training.utils.omegaconf_utils import process_config_with_overrides

        from skill_tools.config.era import installed_version
        from skill_tools.rules.bridge_recipe import tiny_gpt_recipe

        _STATE["versions"] = {**observe.versions(), "megatron_bridge": installed_version("megatron-bridge"),
                              "transformers": installed_version("transformers")}
        _STATE["phase"] = "overrides"
        cfg = tiny_gpt_recipe()
        if opts.layer_spec == "local":
            from megatron.bridge.models.gpt_provider import local_layer_spec

            cfg.model.transformer_layer_spec = local_layer_spec
        if opts.activation_func:
            cfg.model.activation_func = getattr(torch.nn.functional, opts.activation_func)
        cfg = process_config_with_overrides(cfg, cli_overrides=overrides)
        _STATE["graph_config"] = {"after_overrides": _graph_settings(cfg)}
        import megatron.bridge.training.train as train_mod

        observe.wrap_train_step(train_mod, opts.profile_from, opts.profile_steps)
        _watch_teardown()
        _STATE["phase"] = "pretrain"
        print(f"[engine] bridge: megatron-bridge {_STATE['versions']['megatron_bridge']}, "
              f"{len(overrides)} overrides through process_config_with_overrides, pretrain(cfg, gpt_step.forward_step)",
              flush=True)
        pretrain(cfg, forward_step)
        _STATE["graph_config"]["after_pretrain"] = _graph_settings(cfg)

    return observe.run_recorded(body)
