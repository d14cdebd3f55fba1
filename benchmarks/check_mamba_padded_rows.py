"""On a GPU: padded decode rows must not move any request's recurrent state (references/inference.md,
"Recurrent state in a graphed step").

megatron-core 0.19.2 gives a padded decode row the slot index -1 (``mamba_metadata.py`` l.219-226) and
its Triton decode kernels store zeros for such a row and return before touching any state
(``ssm/ops/causal_conv1d_triton.py`` l.82-91, ``ssm/ops/mamba_ssm.py`` l.146-156). Two checks, each
an assertion with its evidence in the JSON written to ``--out``:

1. kernels: ``causal_conv1d_update`` and ``selective_state_update`` called with real slots and -1 rows.
   Every slot no real row names is bitwise unchanged, the -1 rows' outputs are zero, and the real
   rows' outputs and states are bitwise those of the same call without the padded rows.
   Needs only torch, Triton and megatron-core.
2. engine (``--engine``): the ``tiny-mamba-hybrid`` workload, block-scoped decode graphs, batch sizes
   that pad to a larger bucket (3 -> 4, 5 -> 8). Around every graphed decode forward: the step's
   ``batch_indices_decode`` holds -1 rows, a graph replayed, and every state slot outside the step's
   real slots is bitwise unchanged while the real slots advanced. Needs mamba-ssm, causal-conv1d, TE.

Usage: python benchmarks/check_mamba_padded_rows.py --out RESULT.json [--engine]   (exit 1 on a failure)
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from typing import Any

import torch

SLOTS, REAL = 8, [5, 2, 7]  # three real rows in slots 5, 2, 7; padded rows follow them


SAFETY = ("untouched_slots_unchanged", "padded_rows_output_zero", "real_states_advanced")


def _max_abs(a, b) -> float:
    return float((a.float() - b.float()).abs().max())


def _verdict(state0, padded_state, alone_state, y_pad, y_alone, n: int, untouched: list[int]) -> dict[str, Any]:
    """One kernel's step with padded rows against the same real rows alone (both from ``state0``)."""
    return {
        "untouched_slots_unchanged": bool(torch.equal(padded_state[untouched], state0[untouched])),
        "padded_rows_output_zero": bool((y_pad[n:] == 0).all()),
        "real_rows_equal_without_padding": bool(torch.equal(y_pad[:n], y_alone)),
        "real_states_equal_without_padding": bool(torch.equal(padded_state, alone_state)),
        "real_states_advanced": bool(not torch.equal(padded_state[REAL], state0[REAL])),
        "real_rows_max_abs_diff": _max_abs(y_pad[:n], y_alone),
        "real_states_max_abs_diff": _max_abs(padded_state, alone_state),
    }


def _rows(real: list[int], padded: int) -> torch.Tensor:
    return torch.tensor(real + [-1] * padded, dtype=torch.int64, device="cuda")


def check_kernels(seed: int = 0) -> dict[str, Any]:
    from megatron.core.ssm.ops.causal_conv1d_triton import causal_conv1d_update
    from megatron.core.ssm.ops.mamba_ssm import selective_state_update

    g = torch.Generator(device="cuda").manual_seed(seed)
    n, pad = len(REAL), 5
    untouched = [s for s in range(SLOTS) if s not in REAL]
    out: dict[str, Any] = {}

    # conv: state [slots, dim, width], x [batch, 1, dim] (MambaMixer._decode: xBC after in_proj)
    dim, width = 1536, 4
    state0 = torch.randn(SLOTS, dim, width, generator=g, device="cuda").to(torch.bfloat16)
    w = torch.randn(dim, width, generator=g, device="cuda").to(torch.bfloat16)
    b = torch.randn(dim, generator=g, device="cuda").to(torch.bfloat16)
    x = torch.randn(n + pad, 1, dim, generator=g, device="cuda").to(torch.bfloat16)
    padded_state, alone_state = state0.clone(), state0.clone()
    y_pad = causal_conv1d_update(x, padded_state, w, b, "silu", _rows(REAL, pad))
    y_alone = causal_conv1d_update(x[:n].contiguous(), alone_state, w, b, "silu", _rows(REAL, 0))
    torch.cuda.synchronize()
    out["conv"] = _verdict(state0, padded_state, alone_state, y_pad, y_alone, n, untouched)

    # SSM: state [slots, heads, head_dim, d_state] fp32, the mixer's decode shapes (b, s, h, p)
    heads, hd, ds, groups = 16, 32, 64, 8
    s0 = torch.randn(SLOTS, heads, hd, ds, generator=g, device="cuda")
    xs = torch.randn(n + pad, 1, heads, hd, generator=g, device="cuda").to(torch.bfloat16)
    dt = torch.rand(n + pad, 1, heads, generator=g, device="cuda").to(torch.bfloat16)
    dt = dt[..., None].expand(-1, -1, -1, hd)
    A = -torch.rand(heads, generator=g, device="cuda")[:, None, None].expand(-1, hd, ds)
    B = torch.randn(n + pad, 1, groups, ds, generator=g, device="cuda").to(torch.bfloat16)
    C = torch.randn(n + pad, 1, groups, ds, generator=g, device="cuda").to(torch.bfloat16)
    D = torch.randn(heads, generator=g, device="cuda")[:, None].expand(-1, hd)
    dt_bias = torch.rand(heads, generator=g, device="cuda")[:, None].expand(-1, hd)
    sp, sa = s0.clone(), s0.clone()
    kw = {"D": D, "dt_bias": dt_bias, "dt_softplus": True}
    o_pad = selective_state_update(sp, xs, dt, A, B, C, state_batch_indices=_rows(REAL, pad), **kw)
    o_alone = selective_state_update(sa, xs[:n].contiguous(), dt[:n], A, B[:n].contiguous(), C[:n].contiguous(),
                                     state_batch_indices=_rows(REAL, 0), **kw)
    torch.cuda.synchronize()
    out["ssm"] = _verdict(s0, sp, sa, o_pad, o_alone, n, untouched)
    # Safety: padding moves no other request's state and writes nothing for padded rows. Bitwise
    # equality of the real rows with and without padding is recorded beside it (a kernel may pick
    # another launch configuration for another batch size), not required.
    out["ok"] = all(v[k] for v in (out["conv"], out["ssm"]) for k in SAFETY)
    out["setup"] = {"slots": SLOTS, "real_slots": REAL, "padded_rows": pad}
    return out


def check_engine(batch_sizes: list[int], decode_tokens: int, seed: int = 1234) -> dict[str, Any]:
    from skill_tools.harness.inference import attention as A
    from skill_tools.harness.inference import engine_setup as ES
    from skill_tools.harness.inference import worker as W
    from skill_tools.harness.inference import workloads as IW
    from skill_tools.harness.graph_counter import GraphCounter

    spec = IW.WORKLOADS["tiny-mamba-hybrid"]
    reasons = IW.unavailable(spec)
    if reasons:
        return {"ok": None, "unavailable": reasons}
    args = argparse.Namespace(scope="block", seed=seed, decode_tokens=decode_tokens, batch_sizes=batch_sizes,
                              batch_invariant=False, eager_graph_shapes=False, num_cuda_graphs=-1, buffer_gb=0.0)
    A.install_attention("auto")
    engine, model, context, config, build_s, extras = ES.build_engine(args, spec)
    controller = engine.controller
    inner = controller._dynamic_step_forward_logits
    GraphCounter.install()
    steps: list[dict[str, Any]] = []

    def checked(input_ids, position_ids):
        decode = bool(context.is_decode_only()) and bool(context.using_cuda_graph_this_step())
        if not decode:
            return inner(input_ids, position_ids)
        idx = context.mamba_metadata.batch_indices_decode.clone()
        conv0, ssm0 = context.mamba_conv_states.clone(), context.mamba_ssm_states.clone()
        before = GraphCounter.replays
        result = inner(input_ids, position_ids)
        torch.cuda.synchronize()
        real = sorted(int(i) for i in idx.tolist() if i >= 0)
        others = [s for s in range(context.mamba_conv_states.shape[1]) if s not in real]
        steps.append({
            "rows": int(idx.numel()), "padded_rows": int((idx < 0).sum()), "real_slots": real,
            "replayed": GraphCounter.replays > before,
            "other_slots_unchanged": bool(torch.equal(context.mamba_conv_states[:, others], conv0[:, others])
                                          and torch.equal(context.mamba_ssm_states[:, others], ssm0[:, others])),
            "real_slots_advanced": bool(not torch.equal(context.mamba_ssm_states[:, real], ssm0[:, real])),
        })
        return result

    controller._dynamic_step_forward_logits = checked
    timer = argparse.Namespace(drain=lambda: [])  # generate() only drains the worker's timer
    next_id, per_batch = 0, []
    for b in batch_sizes:
        first = len(steps)
        W.generate(engine, W.make_prompts(b, spec.prompt_len, spec.vocab_size, seed), decode_tokens, next_id, timer)
        next_id += b
        mine = steps[first:]
        per_batch.append({"batch_size": b, "graphed_decode_steps": len(mine),
                          "steps_with_padded_rows": sum(1 for s in mine if s["padded_rows"] > 0),
                          "all_replayed": all(s["replayed"] for s in mine),
                          "other_slots_unchanged": all(s["other_slots_unchanged"] for s in mine),
                          "real_slots_advanced": all(s["real_slots_advanced"] for s in mine),
                          "example": mine[0] if mine else None})
    ok = all(p["graphed_decode_steps"] > 0 and p["steps_with_padded_rows"] > 0 and p["all_replayed"]
             and p["other_slots_unchanged"] and p["real_slots_advanced"] for p in per_batch)
    return {"ok": ok, "workload": spec.name, "scope": "block", "engine_build_s": build_s,
            "max_requests": context.max_requests, "state_slots": int(context.mamba_conv_states.shape[1]),
            "mamba_layers": int(context.mamba_conv_states.shape[0]),
            "graph_batch_shapes": [str(d) for d in (context.cuda_graph_batch_dimensions_list or [])],
            "batches": per_batch}


def _write(path: str, doc: dict[str, Any]) -> None:
    with open(path + ".tmp", "w") as fh:
        json.dump(doc, fh, indent=1)
    os.replace(path + ".tmp", path)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--engine", action="store_true", help="also check the engine with block graphs (tiny-mamba-hybrid)")
    p.add_argument("--batch-sizes", default="3,5", type=lambda s: [int(x) for x in s.split(",") if x])
    p.add_argument("--decode-tokens", type=int, default=8)
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(message)s", force=True)
    t0 = time.perf_counter()
    doc: dict[str, Any] = {"check": "mamba padded decode rows", "gpu": torch.cuda.get_device_name(0),
                           "torch": torch.__version__, "kernels": check_kernels()}
    _write(args.out, doc)  # the kernel verdict survives an engine check that is stopped part-way
    if args.engine:
        doc["engine"] = check_engine(args.batch_sizes, args.decode_tokens)
    doc["seconds"] = round(time.perf_counter() - t0, 1)
    verdicts = [doc["kernels"]["ok"]] + ([doc["engine"]["ok"]] if args.engine else [])
    doc["ok"] = all(v is not False for v in verdicts)
    _write(args.out, doc)
    print(json.dumps({"ok": doc["ok"], "kernels": doc["kernels"]["ok"],
                      "engine": doc.get("engine", {}).get("ok")}))
    if torch.distributed.is_initialized():
        torch.distributed.destroy_process_group()
    return 0 if doc["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
