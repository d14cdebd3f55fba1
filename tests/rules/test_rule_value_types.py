"""Rules compare numbers only when a value is a number: a string where a number belongs (a launch
script's ``'²'``) is the flag-value rule's finding, never a TypeError inside another rule (found by
benchmarks/bench_fuzz_hostile.py, seed 33, in ``offload_full_iteration_inflight``)."""

from __future__ import annotations

import pytest

from skill_tools.cli import main

SCRIPT = ("torchrun pretrain_gpt.py --fine-grained-activation-offloading --offload-modules attn_norm "
          "--fine-grained-offloading-max-inflight-offloads '{inflight}' --cuda-graph-warmup-steps '{warmup}' "
          "--te-rng-tracker\n")


@pytest.mark.parametrize("inflight,warmup", [("²", "3"), ("two", "x"), ("-1", "0"), ("1", "²")])
def test_offload_rules_take_strings_where_numbers_belong(tmp_path, capsys, inflight, warmup):
    src = tmp_path / "launch.sh"
    src.write_text(SCRIPT.format(inflight=inflight, warmup=warmup))
    for argv in (["validate", str(src), "--json"],
                 ["apply", str(src), "--impl", "full_iteration", "--out", str(tmp_path / "out.sh")]):
        rc = main(argv)
        capsys.readouterr()
        assert rc in (0, 1, 2), argv
