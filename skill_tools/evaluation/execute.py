"""``--execute``: prove an extracted config on a GPU through the training harness.

Each distinct config runs once (one short capture-and-replay run on the proxy workload, in
the harness's GPU subprocess); results are cached on disk by a hash of the config, so a
re-score costs nothing. Without a GPU or without the harness every execution is recorded as
skipped, with the reason, and the ``executes`` checks drop out of the scores.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from skill_tools.config.model import CanonicalConfig
from skill_tools.errors import InputError, MissingExtraError, NoGpuError

DEFAULT_STEPS = 6
DEFAULT_TIMEOUT_S = 300


def config_hash(cfg: CanonicalConfig, workload: str, steps: int) -> str:
    """Stable across runs and machines: sorted JSON of values, env, workload and steps."""
    payload = json.dumps({"values": dict(cfg), "env": dict(sorted(cfg.env.items())), "workload": workload,
                          "steps": steps}, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:24]


class Executor:
    """Runs configs through ``skill_tools.harness.runner.execute_config``, once per distinct hash."""

    def __init__(self, cache_dir: Path, *, steps: int = DEFAULT_STEPS, timeout_s: int = DEFAULT_TIMEOUT_S,
                 runner: Any = None):
        self.cache_dir = Path(cache_dir)
        self.steps = steps
        self.timeout_s = timeout_s
        self._runner = runner
        self._skip_reason: str | None = None
        self._memo: dict[str, dict[str, Any]] = {}
        self.ran = 0
        self.cached = 0

    def _execute_config(self):
        if self._runner is not None:
            return self._runner
        try:
            from skill_tools.harness.runner import execute_config
        except ImportError as exc:
            self._skip_reason = f"GPU harness unavailable ({exc})"
            return None
        self._runner = execute_config
        return execute_config

    def run(self, cfg: CanonicalConfig, workload: str) -> dict[str, Any]:
        if not cfg.values:
            return {"skipped": "no config extracted from the answer"}
        key = config_hash(cfg, workload, self.steps)
        if key in self._memo:
            return self._memo[key]
        path = self.cache_dir / f"{key}.json"
        if path.is_file():
            try:
                result = json.loads(path.read_text())
                result["cache"] = "hit"
                self.cached += 1
                self._memo[key] = result
                return result
            except (OSError, json.JSONDecodeError):
                pass
        if self._skip_reason:
            return {"skipped": self._skip_reason}
        fn = self._execute_config()
        if fn is None:
            return {"skipped": self._skip_reason}
        try:
            res = fn(cfg, workload=workload, size="tiny", steps=self.steps, timeout_s=self.timeout_s,
                     cache_dir=self.cache_dir)
        except MissingExtraError as exc:
            self._skip_reason = str(exc)
            return {"skipped": self._skip_reason}
        except NoGpuError as exc:
            self._skip_reason = f"no GPU on this machine ({exc})"
            return {"skipped": self._skip_reason}
        except InputError as exc:  # the harness refuses configs that cannot run: a failed execution
            res = {"captured": False, "replayed": False, "loss_ok": False, "error_class": "refused",
                   "evidence": [str(exc)[:300]]}
        result = res.to_dict() if hasattr(res, "to_dict") else dict(res)
        result["config_hash"] = key
        result["workload"] = workload
        self.ran += 1
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(result, indent=2, sort_keys=True, default=str))
        result = dict(result, cache="miss")
        self._memo[key] = result
        return result
