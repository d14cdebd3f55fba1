"""Engine ``bridge``: Megatron Bridge's own ``pretrain()`` with Hydra overrides.

CLI half: :mod:`.cli` renders a variant's overrides (Bridge's override path judges them on the GPU
host) and reads results from the run's own log and sidecar; :mod:`.command_pair` prints Bridge's
``run_script.py`` command pair for a cluster. GPU half: :mod:`.gpu`, run as
``torchrun -m skill_tools.harness.engines.bridge``.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from skill_tools.config.era import Era
from skill_tools.config.model import CanonicalConfig
from skill_tools.harness.engines.base import Engine, RunOne
from skill_tools.harness.engines.bridge import cli
from skill_tools.harness.spec import VariantSpec


BRIDGE_DEFAULT_VARIANTS: dict[str, tuple[str, ...]] = {
    "dense": ("eager", "te:attn+mlp", "full_iteration", cli.LEGACY_FULL_ITERATION),
    "moe": ("eager", "te:attn+moe_router+moe_preprocess", "te:moe_router+moe_preprocess"),
    "moe_droppad": ("eager", "te:moe", cli.LEGACY_FULL_ITERATION),
}


class Bridge(Engine):
    name = "bridge"
    summary = "Megatron Bridge's own pretrain() with the rendered Hydra overrides"
    worker = cli.WORKER
    subject = "GPT through Megatron Bridge's pretrain()"
    rebuildable = True
    arguments_key = "bridge_overrides"

    def default_variants(self, workload: str) -> tuple[str, ...]:
        # Bridge refuses per-layer `local` graphs (utils/cuda_graph.py l.146-152 @v0.6.0): its defaults
        # are TE scopes and full iteration in both spellings, what its GPU tests capture.
        return BRIDGE_DEFAULT_VARIANTS[workload]

    def arguments(self, spec: VariantSpec, era: Era) -> list[str]:
        return cli.run_overrides(spec, era)

    def as_run(self, spec: VariantSpec, era: Era) -> CanonicalConfig:
        return cli.overrides_config(spec, era)

    def refuse_illegal(self, specs: list[VariantSpec], user_cfg: CanonicalConfig | None, era: Era) -> None:
        cli.refuse_illegal(specs, era)  # Bridge's own rules (front end bridge) included

    def runner(self, era: Era, *, megatron_lm: str | Path | None = None) -> RunOne:
        return partial(cli.run_one, era=era)

    def workload_record(self, spec: VariantSpec, trials: int) -> dict[str, Any]:
        return cli.workload_record(spec, trials)

    def rebuild_trial(self, spec: VariantSpec, trial: int, iso: dict[str, Any], log: Path, run_dir: Path,
                      era: Era) -> dict[str, Any]:
        from skill_tools.harness.engines.megatron_lm.cli import read_sidecar, run_files, trial_record

        sidecar = run_files(spec, trial, run_dir)[1]
        worker = cli.worker_from_log(spec, log, read_sidecar(sidecar), self.arguments(spec, era))
        return trial_record(trial, iso, log, run_dir.parent, worker)


ENGINE = Bridge()
