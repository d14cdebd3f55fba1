"""Megatron-LM's own args-to-config path as the oracle for a launch: ``parse_args`` on the launch's
arguments, ``validate_args``, then ``core_transformer_config_from_args`` (megatron.training in the
installed megatron-core wheel), so the fields only that step fills (``pipeline_dtype``,
``num_moe_experts`` from ``--num-experts``, ...) are filled as in a real run.

The world is sized so the parallel layout divides it (tensor x pipeline x context x expert x expert-
tensor ranks); no process group is created. Options of the entry point itself (an inference script's
``--temperature``) are ignored the way ``parse_args(ignore_unknown_args=True)`` ignores them.
Nothing is imported at module import.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import warnings
from typing import Any

from skill_tools.config.era import installed_version
from skill_tools.config.model import CanonicalConfig

_LAYOUT = ("tensor_model_parallel_size", "pipeline_model_parallel_size", "context_parallel_size",
           "expert_model_parallel_size", "expert_tensor_parallel_size")


def _world(cfg: CanonicalConfig) -> int:
    size = 1
    for key in _LAYOUT:
        v = cfg.get("model." + key)
        if isinstance(v, int) and not isinstance(v, bool) and v > 0:
            size *= v
    return size


@contextlib.contextmanager
def _process(argv: list[str], world: int, err: io.StringIO):
    saved_argv, saved_env = sys.argv, dict(os.environ)
    sys.argv = ["pretrain_gpt.py", *argv]
    os.environ.update({"WORLD_SIZE": str(world), "RANK": "0", "LOCAL_RANK": "0"})
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            warnings.simplefilter("ignore")
            yield
    finally:
        sys.argv = saved_argv
        os.environ.clear()
        os.environ.update(saved_env)


def run(cfg: CanonicalConfig) -> dict[str, Any]:
    """The launch through Megatron-LM's parser, its checks and its args-to-config step; never raises."""
    version = installed_version("megatron-core")
    if version is None:
        return {"ran": False, "reason": "megatron-core is not installed"}
    if cfg.get("model.use_checkpoint_args"):
        return {"ran": False, "reason": "--use-checkpoint-args: the model's fields come from a checkpoint"}
    argv = [t for t, _ in cfg.argv]
    stage = "import"
    error: BaseException | None = None
    err = io.StringIO()
    try:
        with _process(argv, _world(cfg), err):
            from megatron.training.arguments import core_transformer_config_from_args, parse_args, validate_args

            stage = "parse_args"
            args = parse_args(ignore_unknown_args=True)
            stage = "validate_args"
            validate_args(args)
            stage = "core_transformer_config_from_args"
            core_transformer_config_from_args(args)
    except SystemExit as exc:  # argparse refused an argument
        said = [ln for ln in err.getvalue().splitlines() if "error:" in ln]
        error = ValueError(said[-1].split("error:", 1)[1].strip() if said else f"Megatron-LM's parser exited ({exc.code})")
    except Exception as exc:  # noqa: BLE001 - the exception is the verdict
        error = exc
    if error is not None and stage == "import":
        return {"ran": False, "reason": f"cannot import megatron.training: {type(error).__name__}: {error}"}
    from skill_tools.rules.oracle import match_mlm_rule, match_rule

    return {"ran": True, "mcore_version": version, "path": "megatron_lm_args", "stage": stage if error else "done",
            "ok": error is None, "error_type": type(error).__name__ if error else None,
            "error": str(error)[:500] if error else None, "rule": (match_rule(error) or match_mlm_rule(error)) if error else None,
            "warnings": [], "ignored_keys": []}
