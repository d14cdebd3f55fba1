"""Engine ``megatron-lm``: Megatron-LM's own ``megatron.training.pretrain()`` (what users run).

CLI half: :mod:`.cli` renders a variant's flags from the canonical config (Megatron-LM's argument
parser judges them on the GPU host) and reads results from the run's own log and sidecar. GPU
half: :mod:`.gpu`, run as ``torchrun -m skill_tools.harness.engines.megatron_lm``.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from skill_tools.config.era import Era
from skill_tools.config.model import CanonicalConfig
from skill_tools.harness.engines.base import Engine, RunOne
from skill_tools.harness.engines.megatron_lm import cli
from skill_tools.harness.spec import VariantSpec


class MegatronLM(Engine):
    name = "megatron-lm"
    summary = "Megatron-LM's own pretrain() with the rendered flags (default)"
    worker = cli.WORKER
    subject = "GPT through Megatron-LM's pretrain()"
    rebuildable = True
    arguments_key = "megatron_lm_flags"
    parallel_layouts = True

    def arguments(self, spec: VariantSpec, era: Era) -> list[str]:
        return cli.run_flags(spec, era)

    def as_run(self, spec: VariantSpec, era: Era) -> CanonicalConfig:
        return cli.flags_config(spec, era)

    def layout_problem(self, spec: VariantSpec) -> tuple[str, str] | None:
        return cli.layout_problem(spec.workload, spec.size, spec.nproc, spec.num_microbatches, tp=spec.tp,
                                  pp=spec.pp, ep=spec.ep, vpp_layers=spec.vpp_layers)

    def locate(self, era: Era, *, megatron_lm: str | Path | None = None) -> cli.Training:
        """Where ``megatron.training`` comes from: ``--megatron-lm PATH`` or the installed wheel (0.18+)."""
        return cli.locate_training(megatron_lm, era)

    def runner(self, era: Era, *, megatron_lm: str | Path | None = None) -> RunOne:
        return partial(cli.run_one, era=era, training=self.locate(era, megatron_lm=megatron_lm))

    def workload_record(self, spec: VariantSpec, trials: int) -> dict[str, Any]:
        return cli.workload_record(spec, trials)

    def rebuild_trial(self, spec: VariantSpec, trial: int, iso: dict[str, Any], log: Path, run_dir: Path,
                      era: Era) -> dict[str, Any]:
        training = cli.Training("wheel" if era.has("megatron_training_in_wheel") else "checkout", None)
        sidecar = cli.run_files(spec, trial, run_dir)[1]
        return cli.outcome(spec, trial, iso, log, sidecar, run_dir.parent, self.arguments(spec, era), training)


ENGINE = MegatronLM()
