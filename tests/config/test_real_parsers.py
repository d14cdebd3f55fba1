"""Every command line and override the project prints is accepted by the real parser of its tool.

* Megatron-LM: the installed megatron-core wheel's own ``megatron.training.arguments`` parser
  (built with ``add_megatron_arguments``, no ``parse_args`` side effects) for 0.19; for the other
  tags, the parser rebuilt from the flag table extracted from that tag's ``arguments.py`` (the
  rebuilt 0.19 parser is checked against the real one first, on the same lines and on random ones).
* Bridge's perf harness: the parser rebuilt from ``argument_parser.py``'s extracted table.
* Hydra: hydra-core's own ``OverridesParser`` (optional; skipped with a reason when absent).
"""

from __future__ import annotations

import argparse
import json
import random
import shlex
from pathlib import Path

import pytest

from skill_tools import api
from skill_tools.config import cli_tables
from skill_tools.config.era import era_for
from skill_tools.config.render import render_report
from skill_tools.overrides import apply_changes, override_values

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p for p in (REPO / "examples").iterdir() if p.is_file())
ERAS = ("0.16.1", "0.17.0", "0.18.0", "0.19.2")
REQUESTS = [("full_iteration", None), ("transformer_engine", "attn"), ("transformer_engine", "attn,mlp"),
            ("transformer_engine", "moe_router,moe_preprocess"), ("local", None), ("none", None),
            ("local", "full_iteration")]


def argv_of(text: str) -> list[str]:
    """A rendered flag block as the argument list the parser receives (env prefixes dropped)."""
    toks = shlex.split(text.replace("\\\n", " "))
    while toks and "=" in toks[0] and not toks[0].startswith("-"):
        toks.pop(0)
    return toks


def flags_only(toks: list[str]) -> list[str]:
    """run_script lines end with Hydra overrides (positional ``key=value``), which its
    ``parse_known_args`` passes on to Hydra."""
    return [t for i, t in enumerate(toks) if not ("=" in t and not t.startswith("-")
                                                  and not (i and toks[i - 1].startswith("-") and "=" not in toks[i - 1]))]


def _renderings():
    """(id, era, fmt, rendered) for every example x era x request x flag format, both the
    override block and the whole updated config."""
    out = []
    for path in EXAMPLES:
        cfg = api.load(str(path))
        for version in ERAS:
            era = era_for(version)
            for impl, scope in REQUESTS:
                try:
                    plan = api.apply(cfg, impl, scope, mcore_version=version)
                except Exception:  # noqa: BLE001 - an input error for this era is not a rendering
                    continue
                if not plan.ok:
                    continue
                for fmt in ("megatron_lm", "run_script", "hydra"):
                    out.append((f"{path.name}-{version}-{impl}-{scope}-{fmt}-changes", era, fmt,
                                render_report(override_values(plan.changes), fmt, era)))
                    out.append((f"{path.name}-{version}-{impl}-{scope}-{fmt}-whole", era, fmt,
                                render_report(apply_changes(cfg, plan.changes), fmt, era)))
    return out


RENDERINGS = _renderings()


def _by_fmt(fmt: str):
    return [pytest.param(era, r, id=i) for i, era, f, r in RENDERINGS if f == fmt]


# --------------------------------------------------------------------------------------------
# Megatron-LM
# --------------------------------------------------------------------------------------------



def real_verdict(parser: argparse.ArgumentParser, argv: list[str]) -> str | None:
    """None when Megatron-LM's parser accepts ``argv``, else its complaint."""
    try:
        _, unknown = parser.parse_known_args(argv)
    except (argparse.ArgumentError, KeyError, ValueError, TypeError) as exc:
        return f"{type(exc).__name__}: {exc}"
    except SystemExit as exc:
        return f"exit {exc.code}"
    return f"unrecognized arguments: {' '.join(unknown)}" if unknown else None


@pytest.mark.parametrize("era,rendered", _by_fmt("megatron_lm"))
def test_megatron_lm_rendering_is_accepted_by_its_tag_parser(era, rendered):
    argv = argv_of(rendered.text)
    problems = cli_tables.parse(cli_tables.megatron_lm(era.mcore_version), argv)
    assert not problems, f"{rendered.parser} refuses {rendered.text!r}: {[p.message for p in problems]}"


@pytest.mark.parametrize("rendered", [pytest.param(r, id=i) for i, era, f, r in RENDERINGS
                                      if f == "megatron_lm" and era.version_tuple >= (0, 19, 0)])
def test_megatron_lm_rendering_is_accepted_by_the_installed_megatron_lm(real_mlm, rendered):
    argv = argv_of(rendered.text)
    assert real_verdict(real_mlm, argv) is None, rendered.text


def test_rebuilt_parser_agrees_with_the_real_one_on_random_lines(real_mlm):
    """The 0.19 table rebuilt into argparse accepts and refuses what the real parser does.
    Options with a custom ``type=`` that is not an enum lookup (``la_freq_type``, ``tuple_type``)
    are rebuilt as accepting any string, a documented leniency, so they are not drawn."""
    table = cli_tables.megatron_lm("0.19.2")
    rng = random.Random(14)
    plain_types = (None, "int", "float", "str", "enum_type_handler")
    options = [o for o in table.options if o.long.startswith("--") and (o.type in plain_types or o.accepts)]
    values = ["1", "0", "-1", "2.5", "attn", "mlp", "full_iteration", "none", "local", "block", "bogus", "x,y"]
    disagreements = []
    for _ in range(600):
        argv: list[str] = []
        for opt in rng.sample(options, rng.randint(1, 4)):
            name = opt.long if rng.random() > 0.1 else opt.long + rng.choice(["s", "-x"])  # some typos
            argv.append(name)
            if opt.is_switch:
                if rng.random() < 0.1:
                    argv.append(rng.choice(values))
                continue
            count = 1 if opt.nargs in (None, "?") else rng.randint(0 if opt.nargs == "*" else 1, 3)
            pool = list(opt.choices) if opt.choices and rng.random() < 0.7 else (list(opt.accepts) if opt.accepts and rng.random() < 0.7 else values)
            argv += [str(rng.choice(pool)) for _ in range(count)]
        real = real_verdict(real_mlm, argv)
        ours = cli_tables.parse(table, argv)
        if (real is None) != (not ours):
            disagreements.append((argv, real, [p.message for p in ours]))
    assert not disagreements, disagreements[:5]


@pytest.mark.parametrize("line", ["--attention-backend auto", "--attention-backend flash", "--exit-signal SIGTERM"])
def test_enum_options_take_member_names_like_the_real_parser(real_mlm, line):
    """``enum_type_handler`` (argument_utils.py) looks the member up by name; Megatron-LM's own
    example scripts pass ``--attention-backend auto``."""
    assert real_verdict(real_mlm, line.split()) is None
    for version in ERAS:
        assert not cli_tables.parse(cli_tables.megatron_lm(version), line.split()), (version, line)
    assert cli_tables.parse(cli_tables.megatron_lm("0.19.2"), ["--attention-backend", "AttnBackend.auto"])


@pytest.mark.parametrize("version,line,expected", [
    ("0.19.2", "--gradient-accumulation-fusion", "unknown"),
    ("0.19.2", "--use-te-rng-tracker", "unknown"),
    ("0.19.2", "--check-for-nan-in-loss-and-grad", "unknown"),
    ("0.19.2", "--no-te-rng-tracker", "unknown"),
    ("0.19.2", "--inference-dynamic-batching-cuda-graph-max-tokens 8", "unknown"),
    ("0.16.1", "--rl-persist-cuda-graphs", "unknown"),
    ("0.16.1", "--cuda-graph-impl full_iteration", "value"),
    ("0.16.1", "--cuda-graph-modules attn", "unknown"),
    ("0.17.0", "--inference-cuda-graph-scope block", "unknown"),
    ("0.18.0", "--inference-cuda-graph-scope block --cuda-graph-impl full_iteration", None),
    ("0.19.2", "--recompute-activations full", "value"),
    ("0.19.2", "--recompute-granularity full --no-check-for-nan-in-loss-and-grad --te-rng-tracker", None),
])
def test_tag_tables_know_what_each_version_takes(version, line, expected):
    problems = cli_tables.parse(cli_tables.megatron_lm(version), line.split())
    assert (problems[0].kind if problems else None) == expected, [p.message for p in problems]


def test_flag_tables_name_their_source():
    for tag in cli_tables.MEGATRON_LM_TAGS:
        data = json.loads((cli_tables.DATA / "megatron_lm_flags" / f"{tag}.json").read_text())
        assert data["source"]["tag"] == tag and len(data["source"]["commit"]) == 40
        assert data["source"]["file"] == "megatron/training/arguments.py"
        assert len(data["flags"]) > 500
    rs = json.loads(cli_tables.RUN_SCRIPT_FILE.read_text())
    assert rs["source"]["file"] == "scripts/performance/argument_parser.py" and rs["source"]["commit"].startswith("067f987")
    assert rs["valid_cuda_graph_impls"] == ["none", "local", "transformer_engine"]


@pytest.mark.parametrize("version,tag", [("0.16.0", "core_v0.16.0"), ("0.16.1", "core_v0.16.1"), ("0.16.4", "core_v0.16.1"),
                                         ("0.17.2", "core_v0.17.0"), ("0.18.2", "core_v0.18.0"), ("0.19.2", "core_v0.19.0"),
                                         ("0.21.0", "core_v0.19.0")])
def test_version_to_tag(version, tag):
    assert cli_tables.megatron_lm_tag(version) == tag


# --------------------------------------------------------------------------------------------
# Bridge's perf harness
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("era,rendered", _by_fmt("run_script"))
def test_run_script_rendering_is_accepted_by_argument_parser(era, rendered):
    argv = flags_only(argv_of(rendered.text))
    problems = cli_tables.parse(cli_tables.run_script(), argv)
    assert not problems, f"{rendered.parser} refuses {rendered.text!r}: {[p.message for p in problems]}"
    assert "--cuda_graph_impl full_iteration" not in rendered.text


def test_run_script_full_iteration_is_local_plus_scope_in_every_era():
    for version in ERAS:
        plan = api.apply(str(REPO / "examples/run_script_perf_flags.txt"), "full_iteration", None, mcore_version=version)
        text = render_report(override_values(plan.changes), "run_script", era_for(version)).text
        assert "--cuda_graph_impl local" in text and "--cuda_graph_scope full_iteration" in text, (version, text)


def test_run_script_gpu_flag_round_trips_as_a_flag():
    cfg = api.load(str(REPO / "examples/run_script_perf_flags.txt"))
    text = render_report(cfg, "run_script").text
    assert "--gpu h100" in text and "meta.gpu" not in text
    assert not cli_tables.parse(cli_tables.run_script(), flags_only(argv_of(text)))


# --------------------------------------------------------------------------------------------
# Hydra
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hydra_parser():
    mod = pytest.importorskip("hydra.core.override_parser.overrides_parser",
                              reason="hydra-core is not installed (pip install -e '.[dev]')")
    return mod.OverridesParser.create()


def _hydra_lines(rendered_text: str, fmt: str) -> list[str]:
    """The overrides Hydra receives: the rendered text's shell words (a Hydra overrides file is
    read as the words of a command line)."""
    return [t for t in argv_of(rendered_text) if "=" in t and not t.startswith("-") and not t.split("=", 1)[0].isupper()]


@pytest.mark.parametrize("fmt,rendered", [pytest.param(f, r, id=i) for i, era, f, r in RENDERINGS if f in ("hydra", "run_script")])
def test_hydra_overrides_parse_as_single_values(hydra_parser, fmt, rendered):
    from skill_tools.config.hydra_grammar import value as hydra_value

    for line in _hydra_lines(rendered.text, fmt):
        override = hydra_parser.parse_override(line)
        assert not override.is_sweep_override(), f"Hydra reads {line!r} as a sweep"
        assert override.value() == hydra_value(line.split("=", 1)[1]), line


SWEEP_CASES = ["attn,mlp", "[attn,mlp]", "'attn,mlp'", "attn", "choice(attn,mlp)", "range(1,3)", "[a,[b,c]]",
               "{a:1,b:2}", "a\\,b", "\"x,y\"", "1,2,3", "null", "interval(0,1)", "glob(*)", "[]"]


@pytest.mark.parametrize("value", SWEEP_CASES)
def test_sweep_detector_agrees_with_hydra(hydra_parser, value):
    from skill_tools.rules.cli_checks import is_sweep

    assert is_sweep(value) == hydra_parser.parse_override(f"model.cuda_graph_scope={value}").is_sweep_override()


# --------------------------------------------------------------------------------------------
# the readers' findings
# --------------------------------------------------------------------------------------------


def _rules(text: str, version: str, fmt: str | None = None) -> dict[str, list[str]]:
    report = api.validate(text, version, fmt=fmt)
    out: dict[str, list[str]] = {}
    for f in report.findings:
        out.setdefault(f.rule, []).append(f.message)
    return out


def test_unknown_megatron_lm_flags_are_errors_with_did_you_mean():
    rules = _rules("torchrun --nproc-per-node 8 pretrain_gpt.py --num-layers 2 "
                   "--inference-dynamic-batching-cuda-graph-max-tokens 8 --cuda-grpah-impl local\n", "0.19.2", "megatron_lm")
    msgs = rules["megatron-lm-flag-unknown"]
    assert any("--inference-cuda-graph-max-tokens" in m and "core_v0.17.0" in m for m in msgs), msgs
    assert any("did you mean --cuda-graph-impl?" in m for m in msgs), msgs
    assert not any("--nproc-per-node" in m for m in msgs)  # the launcher's flag, not Megatron-LM's


def test_rl_flag_unknown_at_016():
    assert "megatron-lm-flag-unknown" in _rules("pretrain_gpt.py --rl-persist-cuda-graphs --cuda-graph-impl local\n",
                                                "0.16.1", "megatron_lm")


def test_run_script_unknown_flag_and_full_iteration_impl():
    rules = _rules("python scripts/performance/run_script.py -m llama -mr llama3_8b -g h100 -ng 8 "
                   "--cuda_graph_scpoe attn --cuda_graph_impl full_iteration\n", "0.19.2", "run_script")
    assert any("did you mean --cuda_graph_scope?" in m for m in rules["run-script-flag-unknown"])
    assert any("full_iteration" in m for m in rules["run-script-flag-value"])


def test_run_script_switches_do_not_swallow_the_next_token():
    cfg = api.load("python scripts/performance/run_script.py --dryrun model.num_moe_experts=8 --cuda_graph_impl local\n",
                   "run_script")
    assert cfg.get("model.num_moe_experts") == 8 and cfg.get("model.cuda_graph_impl") == "local"


def test_hydra_comma_value_is_a_sweep_finding():
    rules = _rules("model.cuda_graph_impl=transformer_engine\nmodel.cuda_graph_scope=attn,mlp\n"
                   "model.use_te_rng_tracker=true\nrng.te_rng_tracker=true\n", "0.16.1", "hydra")
    assert any("[attn,mlp]" in m for m in rules["hydra-override-sweep"])
    clean = _rules("model.cuda_graph_impl=transformer_engine\nmodel.cuda_graph_scope=[attn,mlp]\n"
                   "model.use_te_rng_tracker=true\nrng.te_rng_tracker=true\n", "0.16.1", "hydra")
    assert "hydra-override-sweep" not in clean


# --------------------------------------------------------------------------------------------
# key typos in any section
# --------------------------------------------------------------------------------------------


def test_graph_key_typo_without_graph_in_its_name_is_refused():
    from skill_tools.errors import InputError

    with pytest.raises(InputError, match="did you mean 'model.cuda_graph_impl'"):
        api.load("model:\n  cuda_grpah_impl: local\n", "yaml")


@pytest.mark.parametrize("text,fmt,key", [
    ("train:\n  micro_batch_sise: 2\n", "yaml", "train.micro_batch_size"),
    ("optimizer.weight_decey=0.1\n", "hydra", "optimizer.weight_decay"),
    ("cfg.ddp.overlap_grad_reduse = True\n", "python", "ddp.overlap_grad_reduce"),
    ("python scripts/performance/run_script.py --cuda_graph_impl local model.moe_token_dispacher_type=alltoall\n",
     "run_script", "model.moe_token_dispatcher_type"),
])
def test_key_typos_in_any_section_get_did_you_mean(text, fmt, key):
    report = api.validate(text, "0.19.2", fmt=fmt)
    hits = [f for f in report.findings if f.rule == "config-key-unknown"]
    assert hits and f"did you mean {key!r}" in hits[0].message, [f.message for f in report.findings]


def test_every_key_of_the_examples_is_known():
    for path in EXAMPLES:
        report = api.validate(str(path), "0.19.2")
        assert not [f for f in report.findings if f.rule == "config-key-unknown"], path
