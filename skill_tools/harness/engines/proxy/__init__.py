"""Engine ``proxy``: the harness's own loop from MCore parts, a capture micro-benchmark.

Not evidence of user behaviour (less host work per step than Megatron-LM's loop, DDP built on
another stream); guidance rests on the engines that run the framework's own loop. CLI half:
:mod:`.cli` (one worker per variant, and ``execute_config`` for the evals); GPU half: :mod:`.gpu`
with :mod:`.model` and :mod:`.setup`, run as ``torchrun -m skill_tools.harness.engines.proxy``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skill_tools.config.era import Era
from skill_tools.harness.engines.base import Engine, RunOne
from skill_tools.harness.engines.proxy import cli
from skill_tools.harness.spec import VariantSpec


class Proxy(Engine):
    name = "proxy"
    summary = "the harness's own MCore loop, a capture micro-benchmark (not user behaviour)"
    worker = cli.WORKER
    subject = "proxy"
    runs_user_loop = False
    own_streams = False

    def runner(self, era: Era, *, megatron_lm: str | Path | None = None) -> RunOne:
        return cli.run_one

    def workload_record(self, spec: VariantSpec, trials: int) -> dict[str, Any]:
        return cli.workload_record(spec, trials)


ENGINE = Proxy()
