"""In-place edit commands (sed -i, perl -pi -e, yq -i) are read as what they write into the user's
file; the commands themselves are never run. Answers written for these tests."""

from __future__ import annotations

import pytest
from one_answer import score_one

from skill_tools.evaluation.edit_commands import edit_commands
from skill_tools.evaluation.extract import extract_config

F = "```"


@pytest.mark.parametrize("line,want", [
    (r"sed -i 's/^\(\s*cuda_graph_impl:\).*/\1 local/' serve.yaml", [("new", "cuda_graph_impl: local")]),
    (r"sed -i.bak -E 's|^(\s*cuda_graph_scope:).*|\1 [full_iteration_inference]|' s.yaml",
     [("new", "cuda_graph_scope: [full_iteration_inference]")]),
    ("sed -i 's/cuda_graph_impl: none/cuda_graph_impl: local/' s.yaml",
     [("old", "cuda_graph_impl: none"), ("new", "cuda_graph_impl: local")]),
    ("sed -i -e 's/--cuda-graph-impl none/--cuda-graph-impl local/' -e 's/--no-te-rng-tracker/--te-rng-tracker/' t.sh",
     [("old", "--cuda-graph-impl none"), ("new", "--cuda-graph-impl local"), ("old", "--no-te-rng-tracker"),
      ("new", "--te-rng-tracker")]),
    (r"perl -pi -e 's/^(\s*cuda_graph_impl:).*/$1 local/' serve.yaml", [("new", "cuda_graph_impl: local")]),
    ("yq -i '.model.cuda_graph_impl = \"local\" | .model.cuda_graph_scope = [\"full_iteration_inference\"]' s.yaml",
     [("new", "model.cuda_graph_impl=local\nmodel.cuda_graph_scope=[\"full_iteration_inference\"]")]),
    # a back-reference to a group that is not literal, a pattern that is a class: nothing is guessed
    (r"sed -i 's/^\([a-z_]*\): none/\1: local/' s.yaml", []),
    ("grep -n cuda_graph s.yaml", []),
])
def test_edit_commands_read_as_what_they_write(line, want):
    _, found = edit_commands(line)
    assert [(side, text) for side, text, _ in found] == want


def test_an_edit_command_is_never_a_launch():
    body, found = edit_commands("sed -i 's/a: 1/a: 2/' x.yaml\ntorchrun pretrain_gpt.py --cuda-graph-impl local\n")
    assert "sed" not in body and "torchrun" in body and found


@pytest.mark.parametrize("fence", [True, False])
def test_sed_edits_for_the_017_decode_backport(fence):
    edits = ("sed -i 's/^\\(\\s*cuda_graph_impl:\\).*/\\1 local/' serve.yaml\n"
             "sed -i 's/^\\(\\s*cuda_graph_scope:\\).*/\\1 [full_iteration_inference]/' serve.yaml\n")
    lead = ("megatron-core 0.17 has no inference_cuda_graph_scope; whole-block decode graphs are the local "
            "implementation with the full_iteration_inference scope. Edit the serving config in place:\n\n")
    text = lead + (f"{F}bash\n{edits}{F}\n" if fence else edits)
    cfg = extract_config(text).config
    assert cfg.get("model.cuda_graph_impl") == "local"
    assert cfg.get("model.cuda_graph_scope") == ["full_iteration_inference"]
    assert score_one("inference-decode-legacy-017", text)["passed"]
    wrong = text.replace("[full_iteration_inference]/", "[full_iteration]/")
    assert not score_one("inference-decode-legacy-017", wrong)["passed"]
