"""Claims stated across a table's cells (:mod:`skill_tools.evaluation.table_statements`): the row or
the column names the subject, a bare value in the first cell is named by the setting the table is
about, and a short cell joins its column's attribute ("higher" under "memory"). Answers written for
these tests in the table shapes seen in held-out sets, through the whole scorer."""

from __future__ import annotations

import pytest
from one_answer import assert_claimed, assert_passes, checks_of, score_one

from skill_tools.evaluation.table_statements import statements

WRAP = ("Wrap bottom-up: `fully_shard(block)` for every transformer block, then `fully_shard(model)`, and "
        "build the optimizer afterwards.\n\n```python\nfor block in model.layers:\n    fully_shard(block)\n"
        "fully_shard(model)\n```\n\n")

VALUE_ROWS_INVERTED = WRAP + """**reshard_after_forward**

| setting | memory | speed |
|---|---|---|
| `True` | higher — the gathered params are kept around for backward | faster, no second all-gather |
| `False` | lower — params are freed after each block's forward | slower, re-gathers in backward |
"""

VALUE_ROWS_RIGHT = WRAP + """**reshard_after_forward**

| setting | memory | speed |
|---|---|---|
| `True` | lower — params are freed after each block's forward | slower, re-gathers in backward |
| `False` | higher — the gathered params stay until backward | faster, no second all-gather |

With 80 GB per GPU, start with the default `True` and switch to `False` only if you have headroom.
"""

COLUMNS_INVERTED = WRAP + """| | `reshard_after_forward=True` | `reshard_after_forward=False` |
|---|---|---|
| after a block's forward | stay unsharded | freed back to shards |
| backward | no extra all-gather | all-gathers each block again |
"""

QUANTITY_CELLS_RIGHT = WRAP + """| | `reshard_after_forward=True` | `reshard_after_forward=False` |
|---|---|---|
| After a block's forward | frees the unsharded params | keeps them gathered |
| Extra memory (13B, bf16) | ≈ one or two blocks' params at a time | up to ≈ 26 GB/GPU |
| Extra communication | one more all-gather per step | none |

Default `True` saves memory; use `False` when memory allows, for speed.
"""


@pytest.mark.parametrize("answer", [VALUE_ROWS_INVERTED, COLUMNS_INVERTED], ids=["value-rows", "columns"])
def test_an_inverted_trade_off_in_a_table_fails(answer):
    assert_claimed("neg-fsdp-sharding", answer)


@pytest.mark.parametrize("answer", [VALUE_ROWS_RIGHT, QUANTITY_CELLS_RIGHT], ids=["value-rows", "quantities"])
def test_the_right_trade_off_in_a_table_passes(answer):
    assert_passes("neg-fsdp-sharding", answer)


def test_a_bare_value_row_is_named_by_the_setting_above_the_table():
    lines = [s for s, _, _ in statements(VALUE_ROWS_INVERTED)]
    assert "reshard_after_forward=True: higher memory." in lines
    assert "reshard_after_forward=False: lower memory." in lines


def test_a_long_cell_does_not_join_its_column_header():
    lines = [s for s, _, _ in statements(QUANTITY_CELLS_RIGHT)]
    assert not any(s.startswith("reshard_after_forward") and "extra memory" in s.lower() for s in lines)
    assert "reshard_after_forward=False: keeps them gathered." in lines


def test_each_statement_points_at_its_row():
    text = VALUE_ROWS_INVERTED
    for sentence, pos, _ in statements(text):
        assert text[pos:].startswith("| `True`") or text[pos:].startswith("| `False`"), sentence


def test_a_table_introduced_as_what_does_not_work_states_nothing():
    text = "What does not work:\n\n| setting | effect |\n|---|---|\n| `x_y=True` | faster |\n"
    assert statements(text) == []


COMPARISON = """| | Qwen3.5 (attention + Gated DeltaNet) | Nemotron-H (attention + Mamba + MLP) |
|---|---|---|
| How MCore builds the layers | GDN layers are `TransformerLayer`s whose `self_attention` is `GatedDeltaNet` | Mamba layers are `MambaLayer`s |
| Scope for the mixers | **`attn`** covers the softmax-attention and the GDN layers | **`mamba`** for the Mamba layers |

Verify capture (`graphable layers` in the log) and A/B against eager after capture. NVFP4 with the mamba scope can hit an
illegal memory access (TE#3316): drop mamba or use MXFP8 there.
"""


def test_a_comparison_table_keeps_each_column_to_its_subject():
    assert_passes("gdn-mamba-scope", COMPARISON)


ORG_ROWS_INVERTED = """* Recommendation
  Use =reshard_after_forward=False= on the transformer blocks, then wrap the root.

* What the flag trades
  | setting | after a block's forward                              | memory | comm                         |
  |---------+------------------------------------------------------+--------+------------------------------|
  | =True=  | keeps the gathered params around for backward         | higher | one all-gather per block     |
  | =False= | drops the gathered params right away, back to shards | lower  | all-gather again in backward |
"""


def test_an_org_table_of_booleans_is_named_by_the_setting_of_its_section():
    said = [s for s, _, _ in statements(ORG_ROWS_INVERTED)]
    assert "reshard_after_forward=True: higher memory." in said
    assert_claimed("neg-fsdp-sharding", ORG_ROWS_INVERTED)


ORG_VERSION_TABLE = """* Where it is enforced
  | megatron-core | ~transformer_engine~ impl              | ~local~ impl                          |
  |---------------+----------------------------------------+---------------------------------------|
  | 0.16 – 0.18   | asserted (TECudaGraphHelper), every GPU | asserted only before Blackwell        |
  | 0.19          | asserted (TECudaGraphHelper), every GPU | check removed                         |

  Export NCCL_GRAPH_REGISTER=0 with expandable segments on every version.
"""


def test_an_indented_org_table_row_is_read_with_its_header():
    row = score_one("expandable-segments-te-assert", ORG_VERSION_TABLE)
    assert all(c["score"] != 0.0 for c in checks_of(row, "claim_absent")), row["fatal"]
