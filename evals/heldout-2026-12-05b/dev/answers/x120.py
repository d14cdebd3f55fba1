#!/usr/bin/env python3
"""cg.py - recommend -> apply -> validate for CUDA graphs, one command.

    python tools/cg.py recommend configs/qwen3_30b_a3b.yaml
    python tools/cg.py bringup   configs/qwen3_30b_a3b.yaml --out configs/qwen3_30b_a3b.cg.yaml

What to expect for configs/qwen3_30b_a3b.yaml (dropless MoE, alltoall dispatcher, EP=8):

    impl     transformer_engine
    modules  moe_router, moe_preprocess   (attn: add later as its own A/B)
    plus     model.use_te_rng_tracker=true, rng.te_rng_tracker=true

Why not the others: with dropless routing the alltoall dispatcher copies token counts to
the host every step, so the whole-MoE `moe` scope (drop-and-pad only) and a full-iteration
graph cannot capture; the router and preprocess parts are static and capturable. The
`local` impl is a Megatron-LM path; Bridge training rejects it unless it is the
full-iteration spelling.

`skill-tools apply` writes the era-correct keys for the installed megatron-core
(0.18+: cuda_graph_modules and cuda_graph_scope cleared; 0.16-0.17: cuda_graph_scope),
so never hand-translate; `validate` must come back without errors before launching.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import typer

app = typer.Typer(add_completion=False, help=__doc__.splitlines()[0])

EXPECTED_IMPL = "transformer_engine"
EXPECTED_MODULES = ("moe_router", "moe_preprocess")


def _skill_tools(*args: str) -> tuple[int, dict]:
    """Run one skill-tools command with --json; exit 0 clean, 1 findings, 2 bad input."""
    proc = subprocess.run(["skill-tools", *args, "--json"], capture_output=True, text=True)
    if proc.returncode == 2:
        typer.secho(proc.stderr.strip() or proc.stdout.strip(), fg="red", err=True)
        raise typer.Exit(2)
    return proc.returncode, json.loads(proc.stdout)


@app.command()
def recommend(config: Path = typer.Argument(..., exists=True, readable=True)) -> None:
    """Print skill-tools' impl/scope recommendation for CONFIG and sanity-check it."""
    _, rec = _skill_tools("recommend", str(config))
    typer.echo(json.dumps(rec, indent=2))

    blob = json.dumps(rec)
    missing = [m for m in (EXPECTED_IMPL, *EXPECTED_MODULES) if m not in blob]
    if missing:
        typer.secho(
            f"note: recommendation does not mention {missing}; check the config really is "
            "dropless alltoall MoE before overriding it by hand",
            fg="yellow",
        )


@app.command()
def bringup(
    config: Path = typer.Argument(..., exists=True, readable=True),
    out: Path = typer.Option(..., help="where to write the patched config"),
) -> None:
    """recommend -> apply -> validate; writes OUT only if validate has no errors."""
    recommend(config)

    rc, applied = _skill_tools(
        "apply", str(config), "--impl", EXPECTED_IMPL, "--scope", *EXPECTED_MODULES
    )
    typer.echo(json.dumps(applied, indent=2))
    patched = applied.get("config_text") or applied.get("yaml")
    if not patched:
        typer.secho("apply printed no config text; copy its changed keys by hand", fg="yellow")
        raise typer.Exit(1)
    out.write_text(patched)

    rc, report = _skill_tools("validate", str(out))
    errors = [f for f in report.get("findings", []) if f.get("severity") == "error"]
    for f in report.get("findings", []):
        typer.echo(f"{f['severity']:8} {f['rule']:40} {f['message']}")
    if errors:
        typer.secho(f"{len(errors)} error(s): not launch-ready", fg="red")
        raise typer.Exit(1)
    typer.secho(f"OK: {out} validates; next, A/B it against eager (skill-tools bench / logs)", fg="green")


if __name__ == "__main__":
    sys.exit(app())
