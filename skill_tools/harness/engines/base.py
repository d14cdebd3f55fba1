"""What an engine is: the one protocol every engine implements, CLI side.

An engine turns a :class:`~skill_tools.harness.spec.VariantSpec` into one isolated GPU run and the
run into a trial record. Each engine is a folder under ``harness/engines/`` with two halves:

* ``__init__.py`` — the CLI half, an :class:`Engine` subclass (no torch import): what a variant
  becomes on the command line (:meth:`Engine.arguments`), what the validator judges before any GPU
  time (:meth:`Engine.refuse_illegal`), how one run is started and read back (:meth:`Engine.runner`);
* ``gpu.py`` + ``__main__.py`` — the GPU half, run as ``torchrun -m skill_tools.harness.engines.<name>``:
  the only code that imports torch, megatron and Transformer Engine at module level.

The registry (:mod:`skill_tools.harness.engines`) maps names to instances; the CLI, the evals'
``--execute`` and ``--rebuild`` ask it, never compare engine names.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, ClassVar

from skill_tools.config.era import Era
from skill_tools.config.model import CanonicalConfig
from skill_tools.errors import InputError
from skill_tools.harness.spec import VariantSpec

#: ``run(spec, trial, out_dir, timeout_s) -> {"trial", "isolation", "worker"}``: one isolated run.
RunOne = Callable[[VariantSpec, int, Path, float], dict[str, Any]]


class Engine:
    """One engine's CLI half. Subclasses set the class attributes and override what differs."""

    #: The name users pass to ``--engine``.
    name: ClassVar[str]
    #: One line for ``--help``.
    summary: ClassVar[str]
    #: What runs each variant, as plans and dry runs state it.
    worker: ClassVar[str]
    #: What ran, after the workload's name, in result tables ("dense GPT through Megatron-LM's pretrain()").
    subject: ClassVar[str]
    #: Runs the user's own framework loop (its results are evidence of user behaviour).
    runs_user_loop: ClassVar[bool] = True
    #: Results are derived from the run's own log and sidecar, so ``--rebuild`` can derive them again.
    rebuildable: ClassVar[bool] = False
    #: Key under which a dry-run plan lists :meth:`arguments` (None: the engine takes none).
    arguments_key: ClassVar[str | None] = None
    #: Accepts ``--tp/--pp/--ep/--vpp-layers``.
    parallel_layouts: ClassVar[bool] = False
    #: The framework decides its streams (``--capture-stream`` is refused).
    own_streams: ClassVar[bool] = True

    def default_variants(self, workload: str) -> tuple[str, ...]:
        """The named variants a bench of ``workload`` runs when none are asked for."""
        from skill_tools.harness.spec import DEFAULT_VARIANTS

        return DEFAULT_VARIANTS[workload]

    # -- what a variant becomes ---------------------------------------------------------------

    def arguments(self, spec: VariantSpec, era: Era) -> list[str]:
        """Everything the framework is given for one variant (flags or overrides)."""
        return []

    def as_run(self, spec: VariantSpec, era: Era) -> CanonicalConfig:
        """The variant as the validator reads it: the config it will really run."""
        from skill_tools.harness.spec import config_of

        return config_of(spec, era)

    def refuse_illegal(self, specs: list[VariantSpec], user_cfg: CanonicalConfig | None, era: Era) -> None:
        """InputError (exit 2, no GPU time) when the validator finds an error in what would run, or
        a variant sets the training loop (manual GC) of an engine that runs no framework loop."""
        from skill_tools.harness.spec import refuse_illegal

        loop = [s.name for s in specs if s.manual_gc]
        if loop and not self.runs_user_loop:
            raise InputError("--variants", f"{', '.join(loop)}: manual GC is a setting of a training loop, and "
                             f"the {self.name} engine has none", hint="use an engine that runs the framework's "
                             "own loop (--engine megatron-lm or --engine bridge)")
        refuse_illegal(specs, user_cfg, era, config=lambda s: self.as_run(s, era))

    def layout_problem(self, spec: VariantSpec) -> tuple[str, str] | None:
        """(what is wrong, the fix) for a parallel layout this engine would refuse, or None."""
        if any(v not in (1, None) for v in (spec.tp, spec.pp, spec.ep, spec.vpp_layers)):
            return (f"parallel layouts do not run with --engine {self.name}",
                    "drop --tp/--pp/--ep/--vpp-layers, or use an engine that runs them (--engine megatron-lm)")
        return None

    # -- how it runs --------------------------------------------------------------------------

    def locate(self, era: Era, *, megatron_lm: str | Path | None = None) -> Any:
        """What the engine needs from this machine besides the GPU, checked before any work (InputError,
        exit 2, naming what is missing); what it found, for plans to show (None: nothing to find)."""
        return None

    def runner(self, era: Era, *, megatron_lm: str | Path | None = None) -> RunOne:
        """The callable that runs one variant once (locates what the engine needs first)."""
        raise NotImplementedError

    def workload_record(self, spec: VariantSpec, trials: int) -> dict[str, Any]:
        """What the engine ran in place of the user's model: recorded with every result."""
        raise NotImplementedError

    def rebuild_trial(self, spec: VariantSpec, trial: int, iso: dict[str, Any], log: Path, run_dir: Path,
                      era: Era) -> dict[str, Any]:
        """A trial record derived again from a committed log and sidecar (``rebuildable`` engines)."""
        raise InputError("--rebuild", f"results of engine {self.name!r} cannot be rebuilt from logs",
                         hint="only engines that run the framework's own loop write logs the results follow from")
