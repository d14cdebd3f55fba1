"""Input generators and the bounded CLI runner shared by the fuzz tests and benchmarks/bench_fuzz.py.

Inputs are built from the project's real vocabulary (the rule catalog's keys, the flag tables
extracted from Megatron-LM and Bridge's run_script.py, the bundled examples, the real log
fixtures) and then broken: wrong types, absurd numbers, deep nesting, alias bombs, mutations of
real files. The one property: every call ends with exit 0, 1 or 2 (2 with a one-line error),
within a generous time and memory ceiling, never with a traceback.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import time
import resource
from dataclasses import dataclass
from pathlib import Path

import yaml
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parent.parent
#: Ceilings per input. Typical inputs take well under 0.1 s and a few MiB; the ceilings only
#: catch unbounded work (the alias bomb ran past 60 s at 889 MiB), they do not time anything.
MAX_SECONDS = 120.0
MAX_MIB = 512


def _rss_peak_mib() -> float:
    """This process's resident-set high-water mark (free to read, unlike tracemalloc, which slows
    the helpers five-fold)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _rss_now_mib() -> float:
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):  # not Linux: the high-water mark is the bound
        return _rss_peak_mib()


@dataclass
class Outcome:
    rc: int
    stdout: str
    stderr: str
    seconds: float
    peak_mib: float


class Crash(AssertionError):
    """A call that did not end cleanly: the message holds the reason."""


def run_cli(argv: list[str]) -> Outcome:
    """``skill-tools argv`` in-process; raises Crash unless it ended cleanly within the ceilings.

    ``Outcome.peak_mib``: how far this input raised the process's resident memory above what it
    held when the call began, read from the high-water mark (0 when the input stayed below an
    earlier input's peak, which was checked in its turn)."""
    from skill_tools.cli import main

    out, err = io.StringIO(), io.StringIO()
    rss_before, high_before = _rss_now_mib(), _rss_peak_mib()
    start = time.monotonic()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(argv)
            except SystemExit as exc:  # argparse refusing an argument
                rc = exc.code if isinstance(exc.code, int) else 2
    except Exception as exc:  # noqa: BLE001 - the point: report any escape as a crash
        raise Crash(f"{argv[:1]}: {type(exc).__name__}: {str(exc)[:300]}") from exc
    finally:
        seconds = time.monotonic() - start
        high = _rss_peak_mib()
        peak = high - rss_before if high > high_before else 0.0
    o = Outcome(rc, out.getvalue(), err.getvalue(), seconds, peak)
    keep = os.environ.get("SKILL_TOOLS_FUZZ_KEEP")  # a folder: slow inputs are copied there to study
    if keep and seconds > 5:
        _keep(Path(keep), argv, seconds)
    if rc not in (0, 1, 2):
        raise Crash(f"exit {rc}: {o.stderr[-300:]}")
    if "Traceback" in o.stderr:
        raise Crash("traceback on stderr: " + o.stderr[-300:])
    if rc == 2 and not o.stderr.strip():
        raise Crash("exit 2 without an error message")
    if rc == 2:
        lines = [ln for ln in o.stderr.strip().splitlines() if ln.strip()]
        if not lines[0].startswith("usage:") and len(lines) != 1:  # argparse's own refusal has 2
            raise Crash("error of more than one line: " + o.stderr[-300:])
    if seconds > MAX_SECONDS:
        raise Crash(f"took {seconds:.1f} s (ceiling {MAX_SECONDS:g} s)")
    if peak > MAX_MIB:
        raise Crash(f"raised resident memory by {peak:.0f} MiB (ceiling {MAX_MIB} MiB)")
    return o


def _keep(folder: Path, argv: list[str], seconds: float) -> None:
    import shutil

    folder.mkdir(parents=True, exist_ok=True)
    n = len(list(folder.glob("*.argv")))
    (folder / f"{n}.argv").write_text(json.dumps({"argv": argv, "seconds": seconds}))
    for arg in argv:
        if Path(arg).is_file():
            shutil.copy(arg, folder / f"{n}-{Path(arg).name}")


# --------------------------------------------------------------------------------------------
# vocabulary from the project's own data
# --------------------------------------------------------------------------------------------


def _catalog_keys() -> list[str]:
    data = yaml.safe_load((REPO / "skill_tools" / "rules" / "catalog.yaml").read_text())
    keys = {k for rule in data["rules"] for k in rule.get("keys", [])}
    keys |= {"model." + k for k in data.get("defaults", {})}
    return sorted(keys | {"model.num_layers", "model.hidden_size", "model.cpu_offloading_num_layers",
                          "model.recompute_method", "model.recompute_num_layers", "train.micro_batch_size"})


def _flag_names(path: Path) -> list[str]:
    table = json.loads(path.read_text())
    return sorted({o for row in table["flags"] for o in row.get("options", []) if o.startswith("--")})


KEYS = _catalog_keys()
RUN_SCRIPT_FLAGS = _flag_names(REPO / "skill_tools" / "data" / "run_script_flags.json")
MLM_FLAGS = sorted({f"--{k.split('.')[-1].replace('_', '-')}" for k in KEYS}
                   | {"--cuda-graph-impl", "--cuda-graph-scope", "--cuda-graph-modules", "--enable-cuda-graph",
                      "--external-cuda-graph", "--te-rng-tracker", "--recompute-granularity", "--num-layers"})
WORDS = ["none", "local", "transformer_engine", "full_iteration", "attn", "mlp", "moe", "moe_router",
         "moe_preprocess", "mamba", "layer", "block", "full", "selective", "uniform", "alltoall", "allgather",
         "true", "false", "null", "thd", "bshd", "expandable_segments:True", ""]
EXAMPLES = sorted(p for p in (REPO / "examples").iterdir() if p.is_file())
LOGS = sorted(p for p in (REPO / "tests" / "fixtures" / "logs").glob("*.log"))

huge_ints = st.one_of(st.integers(-10, 10), st.integers(), st.integers(min_value=10**30, max_value=10**120))
scalars = st.one_of(
    st.none(), st.booleans(), huge_ints,
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(WORDS), st.text(max_size=12),
)
values = st.recursive(scalars, lambda kids: st.one_of(st.lists(kids, max_size=4),
                                                      st.dictionaries(st.sampled_from(WORDS + ["x"]), kids, max_size=3)),
                      max_leaves=12)
flat_configs = st.dictionaries(st.sampled_from(KEYS), values, max_size=8)


def nest(flat: dict) -> dict:
    """``{"model.x": 1}`` -> ``{"model": {"x": 1}}`` (later keys win over clashing scalars)."""
    out: dict = {}
    for dotted, value in flat.items():
        parts = dotted.split(".")
        node = out
        for part in parts[:-1]:
            nxt = node.get(part)
            if not isinstance(nxt, dict):
                nxt = node[part] = {}
            node = nxt
        node[parts[-1]] = value
    return out


def _yaml_dump(data: dict) -> str:
    try:
        return yaml.safe_dump(data, sort_keys=False)
    except (yaml.YAMLError, ValueError, OverflowError):
        return json.dumps(data, default=str)


@st.composite
def config_texts(draw) -> tuple[str, str]:
    """(text, suffix) of a config in one of the formats the readers take."""
    flat = draw(flat_configs)
    kind = draw(st.sampled_from(["yaml", "json", "python", "hydra", "run_script", "megatron_lm", "flat_json"]))
    if kind == "yaml":
        return _yaml_dump(nest(flat)), ".yaml"
    if kind == "json":
        return json.dumps(nest(flat), default=str), ".json"
    if kind == "flat_json":
        return json.dumps({k.split(".")[-1]: v for k, v in flat.items()}, default=str), ".json"
    if kind == "python":
        return "".join(f"cfg.{k} = {v!r}\n" for k, v in flat.items()), ".py"
    if kind == "hydra":
        return " ".join(f"{k}={json.dumps(v, default=str)}" for k, v in flat.items()) or "model.num_layers=2", ".txt"
    flags = RUN_SCRIPT_FLAGS if kind == "run_script" else MLM_FLAGS
    picked = draw(st.lists(st.tuples(st.sampled_from(flags), st.one_of(st.none(), st.sampled_from(WORDS),
                                                                        st.text(max_size=8).map(repr), huge_ints.map(str))),
                           max_size=8))
    head = "python scripts/performance/run_script.py" if kind == "run_script" else "torchrun pretrain_gpt.py"
    return head + "".join(f" {f}" + (f" {v}" if v is not None else "") for f, v in picked) + "\n", ".sh"


#: Pieces spliced into real files: the shapes that crashed or hung the helpers before.
HOSTILE = [
    "[" * 2000, "{" * 600, "(" * 900, "not " * 3000, "- " * 500, "9" * 5000, "0x" + "f" * 5000,
    "&a [1,2,3,4,5,6,7,8,9]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n",
    "!!python/object/apply:os.system ['true']", "\x00", "\ufeff", "\r", "\t", "---\n", "...\n", "*undefined",
    "--activation_offload_layers abc", "--cuda-graph-impl", "=", "'", '"', "\\", "#", "1e999", "nan", "-inf",
]


@st.composite
def mutated_files(draw, files: list[Path]) -> tuple[str, str]:
    """A real file with a few pieces cut, repeated or replaced by hostile text."""
    path = draw(st.sampled_from(files))
    text = path.read_text(errors="replace")
    for _ in range(draw(st.integers(1, 4))):
        pos = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["insert", "delete", "dup"]))
        if op == "insert":
            text = text[:pos] + draw(st.one_of(st.sampled_from(HOSTILE), st.text(max_size=20))) + text[pos:]
        elif op == "delete":
            text = text[:pos] + text[pos + draw(st.integers(1, 200)):]
        else:
            text = text[:pos] + text[pos:pos + 300] * draw(st.integers(2, 50)) + text[pos:]
    suffix = "".join(path.suffixes[-1:]) if path.suffix != ".gz" else ".log"
    return text, suffix


LOG_TEMPLATES = [
    " [{ts}] iteration {it:>8}/{total:>8} | consumed samples: {n} | elapsed time per iteration (ms): {ms} | "
    "learning rate: {lr} | global batch size: {n} | lm loss: {loss} | loss scale: 1.0 | grad norm: {loss} | "
    "number of skipped iterations:   0 | number of nan iterations:   0 |",
    "Step Time : {s}s GPU utilization: {ms}MODEL_TFLOP/s/GPU",
    "[Rank {rank}] (after {it} iterations) memory (MB) | allocated: {ms} | max allocated: {ms}",
    "Creating cuda graphs for {n} layers",
    "Time spent in create_cudagraphs: {s}s",
    "> building train, validation, and test datasets ...",
    "Iteration: {it} | loss: {loss} | step time: {ms} ms",
    "RuntimeError: CUDA error: operation not permitted when stream is capturing",
    "AssertionError: Tried getting all rng states but RNG Tracker has not been initalized!",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {ms} GiB",
]
log_numbers = st.one_of(st.integers(-5, 10**6).map(str), st.sampled_from(["0", "0.0", "-0", "nan", "inf", "-inf",
                                                                            "1e308", "9" * 400, "", "x"]),
                        st.floats(allow_nan=True, allow_infinity=True).map(str))


@st.composite
def log_texts(draw) -> str:
    lines = []
    for _ in range(draw(st.integers(0, 60))):
        template = draw(st.sampled_from(LOG_TEMPLATES))
        fields = {k: draw(log_numbers) for k in ("ts", "it", "total", "n", "ms", "lr", "loss", "s", "rank")}
        prefix = draw(st.sampled_from(["", "0: ", "[default0]:", "\x1b[32m", "rank0]: "]))
        lines.append(prefix + template.format(**fields))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n", "\r", "\x00"]))


@st.composite
def answer_lines(draw) -> str:
    """One JSONL answers file: records of odd shapes, answers with fenced configs of any kind."""
    ids = ["dense-te-scoped-bringup", "full-iteration-legacy", "moe-dropless-bringup", "diagnose-log-nan-assert",
           "no-such-task", ""]
    rows = []
    for _ in range(draw(st.integers(1, 3))):
        text, _suffix = draw(config_texts())
        lang = draw(st.sampled_from(["yaml", "python", "json", "bash", "", "text"]))
        answer = draw(st.one_of(
            st.just(f"Set it like this:\n```{lang}\n{text}```\n"),
            st.text(max_size=200),
            st.sampled_from(HOSTILE).map(lambda h: f"```yaml\n{h}\n```"),
            st.just("`cuda_graph_impl=transformer_engine` and " + "[" * 3000),
        ))
        row: object = {"id": draw(st.sampled_from(ids)), "answer": answer,
                       "condition": draw(st.sampled_from(["with_skill", "without_skill", "other", None])),
                       "agent": "fuzz"}
        kind = draw(st.sampled_from(["ok", "ok", "ok", "deep", "list", "bad", "bigint", "answer_not_str"]))
        if kind == "deep":
            rows.append('{"id": "x", "answer": ' + "[" * 100_000 + "]" * 100_000 + "}")
        elif kind == "list":
            rows.append(json.dumps([row]))
        elif kind == "bad":
            rows.append(json.dumps(row)[: draw(st.integers(0, 40))])
        elif kind == "bigint":
            rows.append('{"id": "x", "answer": ' + "9" * 5000 + "}")
        elif kind == "answer_not_str":
            row["answer"] = draw(values)
            rows.append(json.dumps(row, default=str))
        else:
            rows.append(json.dumps(row))
    return "\n".join(rows) + "\n"
