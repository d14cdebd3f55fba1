#!/usr/bin/env python3
"""cg_recommend.py: recommend -> apply -> validate for configs/qwen3_30b_a3b.yaml.

Run:  python cg_recommend.py configs/qwen3_30b_a3b.yaml

What to expect for this model (dropless MoE, alltoall dispatcher, EP=8):
  impl     transformer_engine
  modules  moe_router + moe_preprocess   (attn is worth a separate A/B later)
  plus     use_te_rng_tracker=True and rng.te_rng_tracker=True. Bridge asserts the TE
           RNG tracker for *any* cuda_graph_impl other than "none", whatever the modules.
Why not the alternatives:
  - "moe" (whole MoE MLP): MCore refuses it for dropless MoE
    ("moe cuda graph is only supported with drop-padding MoE.").
  - full_iteration: the dropless alltoall dispatcher copies token counts to the host
    inside the step, so a full-iteration capture fails (cudaErrorCapturedEvent).
  - never moe together with moe_router (MCore asserts).
"""

import json
import subprocess
import sys

EXPECTED_IMPL = "transformer_engine"
EXPECTED_MODULES = {"moe_router", "moe_preprocess"}


def run(*args):
    """Run a skill-tools subcommand with --json; return (exit code, parsed JSON)."""
    proc = subprocess.run(["skill-tools", *args, "--json"], capture_output=True, text=True)
    if proc.returncode == 2:  # bad input: one-line error naming file, line and fix
        sys.exit(f"skill-tools {args[0]} rejected the input:\n{proc.stderr or proc.stdout}")
    return proc.returncode, json.loads(proc.stdout)


def main(cfg):
    # 1) recommend: reads the MoE fields (experts, top-k, dispatcher, capacity factor, EP)
    _, rec = run("recommend", cfg)
    print(json.dumps(rec, indent=2))
    impl = rec.get("impl") or rec.get("recommended", {}).get("impl")
    modules = rec.get("modules") or rec.get("recommended", {}).get("modules") or []
    print(f"\nrecommended: impl={impl} modules={modules}")
    if impl != EXPECTED_IMPL or not EXPECTED_MODULES.issubset(set(modules)):
        print("note: differs from the usual dropless-MoE answer. Check that the file really "
              "is dropless (no moe_expert_capacity_factor) before trusting either.")

    # 2) apply: writes the era-correct keys (cuda_graph_modules + cuda_graph_scope=None on
    #    0.18+, cuda_graph_scope on 0.16-0.17) and both RNG-tracker keys. Never hand-translate.
    run("apply", cfg, "--impl", impl, "--scope", ",".join(modules))

    # 3) validate: exit 0 = clean. Anything else: act on each finding's `fix` map literally.
    code, val = run("validate", cfg)
    for f in val.get("findings", []):
        print(f"[{f.get('severity')}] {f.get('rule')}: {f.get('message')}\n   fix: {f.get('fix')}")
    if code != 0:
        sys.exit("validate still reports findings; fix them before launching")
    print("config validates. Next: A/B eager vs graphs on steady-state steps "
          "(skill-tools bench, or skill-tools logs eager.log graph.log).")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "configs/qwen3_30b_a3b.yaml")
