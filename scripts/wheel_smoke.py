"""Smoke-test an installed ``skill-tools`` the way a user has it: a wheel in a fresh venv.

Run with the venv's own interpreter (``VENV/bin/python scripts/wheel_smoke.py --repo .``); it
calls ``VENV/bin/skill-tools`` from an empty folder outside the repository, so nothing comes
from the checkout (an editable install's finder or the working directory on ``sys.path`` once
hid a missing ``import importlib.util`` from every test). Checks, per subcommand: ``--help``
exits 0, and one cheap real call exits with the expected status and no traceback. The venv is
meant to hold the core install only (no torch, megatron-core, TE): the commands that need them
must say which extra to install, in one line, with exit 2.

Prints one line per check and a closing ``N passed, N failed`` line; exit 1 on any failure.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

#: (argv, expected exit status, text the output must contain). Paths starting with "@" are
#: relative to the repository, "%" to the scratch folder.
SMOKE: list[tuple[list[str], int, str]] = [
    (["--version"], 0, "skill-tools"),
    (["lint", "@."], 0, "clean"),
    (["validate", "@examples/bridge_llama_dense_fixed.yaml"], 0, "clean"),
    (["validate", "@examples/bridge_llama_dense_graph_mistakes.yaml", "--json"], 1, '"findings"'),
    (["validate", "@examples/megatron_lm_full_iteration_legacy.sh", "--mcore-version", "0.16.1"], 1, "0.16.1"),
    (["validate", "%missing.yaml"], 2, "no such file"),
    (["validate", "--oracle", "@examples/bridge_llama_dense_fixed.yaml"], 2, "[oracle]"),
    (["apply", "@examples/bridge_llama_dense_fixed.yaml", "--impl", "full_iteration", "--out", "%out.yaml"], 0, ""),
    (["apply", "@examples/bridge_llama_dense_fixed.yaml", "--impl", "transformer_engine", "--scope", "attn,mlp",
      "--mcore-version", "0.16.1", "--format", "megatron_lm"], 0, "--cuda-graph-scope"),
    (["recommend", "@examples/bridge_moe_dropless.yaml"], 0, "moe_router"),
    (["logs", "@tests/fixtures/logs/synthetic_mlm_eager.log", "@tests/fixtures/logs/synthetic_mlm_full_iteration.log.gz"],
     0, "verdict"),
    (["logs", "@tests/fixtures/logs/bridge_pr3856_rng_tracker.log", "--json"], 1, '"failures"'),
    (["bench", "--engine", "proxy", "--dry-run"], 0, "full_iteration"),
    (["bench", "--bridge-cmd", "--impl", "transformer_engine", "--scope", "attn"], 0, "run_script.py"),
    (["bench", "--engine", "proxy", "--out", "%bench"], 2, "[gpu]"),
    (["precheck", "--results", "@benchmarks/results/2026-12-02-training-h200-dense-tiny.json"], 0, "PREDICT"),
    (["evals", "score", "--answers", "@evals/answers/samples.jsonl", "--evals", "@evals/evals.json"], 0, "gate"),
    (["card", "sync", "--check", "--root", "@."], 0, "up to date"),
]

#: Subcommands with their own sub-actions: each action's --help too.
NESTED = {"evals": ["score", "run"], "card": ["sync"]}


def _resolve(arg: str, repo: Path, scratch: Path) -> str:
    if arg.startswith("@"):
        return str((repo / arg[1:]).resolve())
    if arg.startswith("%"):
        return str(scratch / arg[1:])
    return arg


def _run(exe: str, argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    return subprocess.run([exe, *argv], cwd=cwd, env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=300)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("--allow-heavy", action="store_true",
                    help="do not insist that torch/megatron-core are absent (skips the missing-extra checks)")
    args = ap.parse_args(argv)
    repo = args.repo.resolve()
    exe = str(Path(sys.executable).parent / "skill-tools")
    results: list[tuple[str, str | None]] = []

    def check(name: str, problem: str | None) -> None:
        results.append((name, problem))
        print(("ok    " if problem is None else "FAIL  ") + name + ("" if problem is None else f": {problem}"))

    with tempfile.TemporaryDirectory(prefix="skill-tools-smoke-") as tmp:
        scratch = Path(tmp)
        # The package must come from the venv's site-packages, not from the checkout.
        spec = importlib.util.find_spec("skill_tools")
        origin = Path(spec.origin).resolve() if spec and spec.origin else None
        site = Path(sysconfig.get_paths()["purelib"]).resolve()
        check("skill_tools installed in the venv (not the checkout)",
              None if origin and site in origin.parents else f"found at {origin}, expected under {site}")
        heavy = [m for m in ("torch", "megatron", "transformer_engine") if importlib.util.find_spec(m)]
        if heavy and not args.allow_heavy:
            check("core install has no GPU stacks", f"installed: {', '.join(heavy)}")
        proc = _run(exe, ["--help"], scratch)
        check("skill-tools --help", None if proc.returncode == 0 else f"exit {proc.returncode}: {proc.stderr[-300:]}")
        commands = [ln.split()[0] for ln in proc.stdout.splitlines()
                    if ln.startswith("    ") and ln.split() and not ln.startswith("     ")]
        if len(commands) < 9:
            check("every subcommand listed", f"only {commands}")
        for cmd in commands:
            for sub in [[cmd]] + [[cmd, action] for action in NESTED.get(cmd, [])]:
                p = _run(exe, [*sub, "--help"], scratch)
                ok = p.returncode == 0 and "usage:" in p.stdout and "Traceback" not in p.stderr
                check(f"{' '.join(sub)} --help", None if ok else f"exit {p.returncode}: {p.stderr.strip()[-300:]}")
        for raw, want_rc, want_text in SMOKE:
            if heavy and want_text in ("[oracle]", "[gpu]"):
                continue
            cmd_argv = [_resolve(a, repo, scratch) for a in raw]
            p = _run(exe, cmd_argv, scratch)
            out = p.stdout + p.stderr
            problem = None
            if "Traceback" in p.stderr:
                problem = "traceback: " + p.stderr.strip().splitlines()[-1][:300]
            elif p.returncode != want_rc:
                problem = f"exit {p.returncode}, expected {want_rc}: {out.strip()[-300:]}"
            elif want_text and want_text not in out:
                problem = f"output lacks {want_text!r}: {out.strip()[-300:]}"
            elif want_rc == 2 and len(p.stderr.strip().splitlines()) != 1:
                problem = f"error is not one line: {p.stderr.strip()[-300:]}"
            check("skill-tools " + " ".join(raw), problem)
        out_yaml = scratch / "out.yaml"
        check("apply --out wrote a file", None if out_yaml.is_file() and out_yaml.stat().st_size else "missing")
    failed = sum(p is not None for _, p in results)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
