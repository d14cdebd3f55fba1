# full_iteration_overrides.py
# One CUDA graph for the whole training iteration, megatron-core 0.16.1 + Megatron Bridge.
#
# Typed so the launcher and the sweep scripts share one checked set of keys; apply with
# apply_overrides(cfg) right after the recipe builds its ConfigContainer.

from typing import Final, TypedDict

from megatron.bridge.training.config import ConfigContainer


class FullIterationGraphOverrides(TypedDict):
    # model.*
    cuda_graph_impl: str
    cuda_graph_scope: list[str]
    cuda_graph_warmup_steps: int
    use_te_rng_tracker: bool
    # rng.*
    te_rng_tracker: bool
    # rerun_state_machine.* / ddp.*
    check_for_nan_in_loss: bool
    check_for_nan_in_grad: bool


FULL_ITERATION_016: Final[FullIterationGraphOverrides] = {
    # whole forward+backward captured as one graph (optimizer step stays eager)
    "cuda_graph_impl": "full_iteration",
    # no per-module scope with a whole-iteration graph
    "cuda_graph_scope": [],
    # eager steps before capture; capture at step 0 would record lazy init
    "cuda_graph_warmup_steps": 3,
    # graph-safe RNG (needed for dropout inside captured kernels)
    "use_te_rng_tracker": True,
    "te_rng_tracker": True,
    # both NaN checks sync with the host, which a captured iteration cannot contain
    "check_for_nan_in_loss": False,
    "check_for_nan_in_grad": False,
}


def apply_overrides(cfg: ConfigContainer, o: FullIterationGraphOverrides = FULL_ITERATION_016) -> ConfigContainer:
    cfg.model.cuda_graph_impl = o["cuda_graph_impl"]
    cfg.model.cuda_graph_scope = o["cuda_graph_scope"]
    cfg.model.cuda_graph_warmup_steps = o["cuda_graph_warmup_steps"]
    cfg.model.use_te_rng_tracker = o["use_te_rng_tracker"]
    cfg.rng.te_rng_tracker = o["te_rng_tracker"]
    cfg.rerun_state_machine.check_for_nan_in_loss = o["check_for_nan_in_loss"]
    cfg.ddp.check_for_nan_in_grad = o["check_for_nan_in_grad"]
    return cfg


# Keep seq_length and micro_batch_size fixed for the run. Confirm in the log:
#   "Capture CUDA graph for training!!!" ... "CUDA graph capture done for training!!!"
# and time only the iterations after capture against an eager baseline.
