"""Shipped configs that turn CUDA graphs on, rendered as their launcher renders them.

* Megatron-LM ``tests/functional_tests/**/model_config.yaml``: ``MODEL_ARGS`` rendered as CI's
  ``_run_training.sh`` renders it (``true`` -> bare flag, ``[a, b]`` -> ``a b``, other values after
  the flag), behind the entry point its ``MODE`` runs.
* Megatron-LM ``examples/**/*.sh``: the flags of the script's python command, with the script's
  plain ``NAME=value`` assignments substituted.
* Bridge recipes and perf recipes: each function's ``cfg.<section>.<key> = <literal>`` lines.
* Bridge perf presets (``scripts/performance/configs/**/*workload_base_configs.py``): each preset's
  ``WorkloadBaseConfig``/``replace(...)`` values over the dataclass defaults, as the
  ``run_script.py`` command line that spells them.
* Bridge ``run_script.py`` command lines in its docs and skills.

Each yields ``(file, line, format, text, choice, meta)``; ``choice`` is NVIDIA's graph setting read
independently of the tool under test.
"""

from __future__ import annotations

import ast
import re
import shlex
from typing import Any, Iterator

import yaml

from literal import Unresolved, call_name, chain, value

ENABLED = ("local", "transformer_engine", "full_iteration")
GRAPHISH = r"cuda.graph"


def _flag_text(key: str, val: Any) -> list[str]:
    """One MODEL_ARGS entry as ``_run_training.sh`` renders it: ``true`` -> the bare flag; a list, or
    a string in brackets (``"[attn mlp]"``), -> the flag and its words unquoted; else flag and value."""
    if val is True:
        return [key]
    if isinstance(val, list):
        return [key, *map(str, val)]
    if isinstance(val, str) and re.match(r"^\[[^]]+\]$", val.strip()):
        return [key, *val.strip()[1:-1].split()]
    return [key, str(val)]


def choice_from_flags(flags: dict[str, Any]) -> dict[str, Any]:
    """NVIDIA's graph choice out of Megatron-LM flags (either spelling) or run_script flags."""
    def get(*names: str) -> Any:
        for n in names:
            if n in flags:
                return flags[n]
        return None
    impl = get("--cuda-graph-impl", "--cuda_graph_impl") or "none"
    if impl == "none" and get("--enable-cuda-graph") not in (None, False, "false"):
        impl = "local"
    if impl == "none" and get("--external-cuda-graph") not in (None, False, "false"):
        impl = "transformer_engine"
    mods = get("--cuda-graph-modules", "--cuda-graph-scope", "--cuda_graph_scope") or []
    if isinstance(mods, str) and re.match(r"^\[[^]]+\]$", mods.strip()):
        mods = mods.strip()[1:-1].split()  # CI renders "[attn mlp]" as two words
    mods = mods.split(",") if isinstance(mods, str) else [str(m) for m in mods]
    return _choice(impl, mods, get("--inference-cuda-graph-scope"))


def _choice(impl: Any, mods: list[str], inference: Any = None) -> dict[str, Any]:
    impl = str(impl)
    if "full_iteration" in mods and impl in ("local", "none"):
        impl, mods = "full_iteration", [m for m in mods if m != "full_iteration"]
    if "full_iteration_inference" in mods:
        inference, mods = "block", [m for m in mods if m != "full_iteration_inference"]
    mods = [m for m in mods if m not in ("full",)]
    return {"impl": impl, "modules": mods, "inference_scope": inference}


# ---------------------------------------------------------------- Megatron-LM functional tests

def _entry(path: str, doc: dict[str, Any]) -> str:
    mode = str(doc.get("MODE") or "pretraining")
    if mode == "inference":
        return ("examples/inference/gpt/gpt_dynamic_inference.py" if "dynamic" in path
                else "examples/inference/gpt/gpt_static_inference.py")
    if mode == "rl":
        return "train_rl.py"
    return "pretrain_mamba.py" if re.search(r"/(hybrid|mamba)/|nemotron", path) else "pretrain_gpt.py"


def functional_tests(src, tag: str) -> Iterator[tuple]:
    for path in src.grep_files(tag, GRAPHISH, "tests/functional_tests"):
        if not path.endswith("model_config.yaml"):
            continue
        text = src.show(tag, path)
        doc = yaml.safe_load(text) or {}
        for key in sorted(k for k in doc if re.match(r"^MODEL_ARGS(_\d+)?$", str(k))):
            args = doc[key] or {}
            flags = {str(k): v for k, v in args.items() if v is not False or True}
            choice = choice_from_flags({k: v for k, v in flags.items()})
            if choice["impl"] not in ENABLED:
                continue
            argv: list[str] = []
            for k, v in flags.items():
                if v == "" or v is None:
                    continue
                argv += _flag_text(str(k), "false" if v is False else v)
            line = next((n for n, ln in enumerate(text.splitlines(), 1) if re.search(GRAPHISH, ln)), 1)
            entry = _entry(path, doc)
            yield (path, line, "megatron_lm", "python " + entry + " " + shlex.join(argv), choice,
                   {"entry": entry, "mode": doc.get("MODE") or "pretraining", "model_args_key": key})


# ---------------------------------------------------------------- Megatron-LM example scripts

_ASSIGN = re.compile(r"^\s*(?:export\s+)?([A-Z_][A-Z0-9_]*)=([^\s;`$()]*)\s*(?:#.*)?$")


def example_scripts(src, tag: str) -> Iterator[tuple]:
    for path in src.grep_files(tag, GRAPHISH, "examples"):
        if not path.endswith(".sh"):
            continue
        text = src.show(tag, path).replace("\\\n", " ")
        names = {m.group(1): m.group(2).strip("'\"") for m in map(_ASSIGN.match, text.splitlines()) if m}
        body = re.sub(r"\$\{?([A-Z_][A-Z0-9_]*)\}?", lambda m: names.get(m.group(1), m.group(0)), text)
        try:
            toks = shlex.split(body, comments=True)
        except ValueError as exc:
            yield (path, 1, None, None, None, {"unconverted": f"shell text not tokenizable: {exc}"})
            continue
        entry = next((t for t in toks if t.endswith(".py")), None)
        flags: dict[str, Any] = {}
        i = 0
        while i < len(toks):
            t = toks[i]
            if t.startswith("--") and re.match(r"^--[a-z][\w-]*$", t):
                vals = []
                while i + 1 < len(toks) and not toks[i + 1].startswith("-") and not re.match(r"^[A-Za-z_]\w*=|[|&;)]", toks[i + 1]):
                    if toks[i + 1].endswith(".py") or toks[i + 1] in ("python", "torchrun", "fi", "done"):
                        break
                    i += 1
                    vals.append(toks[i])
                flags[t] = True if not vals else (vals[0] if len(vals) == 1 else vals)
            i += 1
        choice = choice_from_flags(flags)
        if choice["impl"] not in ENABLED:
            continue
        if entry is None:
            yield (path, 1, None, None, None, {"unconverted": "no python entry point in the script"})
            continue
        if any("$" in str(v) for v in flags.values()):
            unresolved = sorted(k for k, v in flags.items() if "$" in str(v))
            flags = {k: v for k, v in flags.items() if k not in unresolved}
        argv = [tok for k, v in flags.items() for tok in _flag_text(k, v)]
        line = next((n for n, ln in enumerate(src.show(tag, path).splitlines(), 1) if re.search(GRAPHISH, ln)), 1)
        yield (path, line, "megatron_lm", "python " + entry.rsplit("/", 1)[-1] + " " + shlex.join(argv), choice,
               {"entry": entry})


# ---------------------------------------------------------------- Bridge recipes

def recipes(src, tag: str) -> Iterator[tuple]:
    paths = [p for p in src.grep_files(tag, "cuda_graph_impl", "src/megatron/bridge/recipes", "src/megatron/bridge/perf_recipes")
             if p.endswith(".py")]
    for path in paths:
        tree = ast.parse(src.show(tag, path))
        family = path.split("/")[4] if len(path.split("/")) > 5 else ""
        for fn in (n for n in tree.body if isinstance(n, ast.FunctionDef)):
            values: dict[str, Any] = {}
            line = fn.lineno
            for st in ast.walk(fn):
                if not isinstance(st, ast.Assign):
                    continue
                for target in st.targets:
                    parts = chain(target)
                    if not parts or len(parts) != 3 or parts[0] != "cfg":
                        continue
                    try:
                        values[f"{parts[1]}.{parts[2]}"] = value(st.value)
                    except Unresolved:
                        continue
                    if parts[2] == "cuda_graph_impl":
                        line = st.lineno
            raw = values.get("model.cuda_graph_modules", values.get("model.cuda_graph_scope"))
            mods = [] if raw is None else [raw] if isinstance(raw, str) else list(raw)
            choice = _choice(values.get("model.cuda_graph_impl", "none"), [str(m) for m in mods],
                             values.get("model.inference_cuda_graph_scope"))
            if raw is None and choice["impl"] == "transformer_engine":
                choice["modules"] = None  # the function leaves the modules to the recipe it starts from
            if choice["impl"] not in ENABLED:
                continue
            values["meta.model_family_name"] = family
            values["meta.model_recipe_name"] = fn.name
            yield (path, line, "yaml", _nested_yaml(values), choice, {"function": fn.name})


def _nested_yaml(values: dict[str, Any]) -> str:
    tree: dict[str, Any] = {}
    for key, val in values.items():
        section, _, rest = key.partition(".")
        tree.setdefault(section, {})[rest] = val
    return yaml.safe_dump(tree, sort_keys=True)


# ---------------------------------------------------------------- Bridge perf presets

RUN_SCRIPT_FLAGS = {
    "num_gpus": "-ng", "tensor_model_parallel_size": "-tp", "pipeline_model_parallel_size": "-pp",
    "context_parallel_size": "-cp", "virtual_pipeline_model_parallel_size": "-vp",
    "expert_model_parallel_size": "-ep", "expert_tensor_parallel_size": "-et", "global_batch_size": "-gb",
    "micro_batch_size": "-mb", "cuda_graph_impl": "--cuda_graph_impl", "cuda_graph_scope": "--cuda_graph_scope",
    "recompute_modules": "--recompute_modules", "moe_a2a_overlap": "--moe_a2a_overlap",
    "moe_flex_dispatcher_backend": "--moe_flex_dispatcher_backend", "recompute_num_layers": "--recompute_num_layers",
    "activation_offload_layers": "--activation_offload_layers", "use_megatron_fsdp": "--use_megatron_fsdp",
}


#: run_script.py's --compute_dtype choices (argument_parser.py @v0.3.1-v0.6.0), longest first.
DTYPES = ("fp8_cs", "fp8_mx", "fp8_sc", "nvfp4", "bf16", "fp8")


def _dataclass_defaults(src, tag: str) -> dict[str, Any]:
    tree = ast.parse(src.show(tag, "scripts/performance/utils/utils.py"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "WorkloadBaseConfig":
            out = {}
            for st in node.body:
                if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value is not None:
                    try:
                        out[st.target.id] = value(st.value)
                    except Unresolved:
                        pass
            return out
    return {}


def perf_presets(src, tag: str) -> Iterator[tuple]:
    paths = [p for p in src.files(tag, "scripts/performance/configs") if p.endswith("workload_base_configs.py")]
    if not paths:
        return
    defaults = _dataclass_defaults(src, tag)
    for path in paths:
        text = src.show(tag, path)
        family = path.split("/")[3]
        presets: dict[str, dict[str, Any]] = {}
        for node in ast.parse(text).body:
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
                continue
            name, rhs = node.targets[0].id, node.value
            if isinstance(rhs, ast.Name) and rhs.id in presets:
                presets[name] = {**presets[rhs.id], "_line": node.lineno}
                continue
            fn = call_name(rhs)
            if fn not in ("WorkloadBaseConfig", "replace"):
                continue
            base = dict(defaults)
            if fn == "replace":
                if not (rhs.args and isinstance(rhs.args[0], ast.Name) and rhs.args[0].id in presets):
                    continue
                base = dict(presets[rhs.args[0].id])
            for kw in rhs.keywords:
                try:
                    base[kw.arg] = value(kw.value)
                except Unresolved:
                    base.setdefault("_unresolved", []).append(kw.arg)
            base["_line"] = node.lineno
            presets[name] = base
        for name, vals in presets.items():
            m = re.match(r"^(.*?)_(PRETRAIN|SFT|FINETUNE|LORA|PEFT)_CONFIG_([A-Z0-9]+)_?(.*?)(?:_(V\d+))?$", name)
            if not m:
                continue
            mods = vals.get("cuda_graph_scope") or []
            mods = mods.split(",") if isinstance(mods, str) else list(mods)
            choice = _choice(vals.get("cuda_graph_impl") or "none", mods)
            if choice["impl"] not in ENABLED:
                continue
            if choice["impl"] == "full_iteration":
                # run_script.py's --cuda_graph_impl takes none/local/transformer_engine only
                # (VALID_CUDA_GRAPH_IMPLS @v0.3.1-v0.6.0): its CLI spelling of a full-iteration preset
                vals = {**vals, "cuda_graph_impl": "local", "cuda_graph_scope": ["full_iteration"]}
            task = {"lora": "peft", "finetune": "sft"}.get(m.group(2).lower(), m.group(2).lower())
            argv = ["-m", family, "-mr", m.group(1).lower().lstrip("_"), "-g", m.group(3).lower(), "--task", task]
            dtype = next((d for d in DTYPES if (m.group(4) or "").lower().startswith(d)), None)
            if dtype:
                argv += ["-c", dtype]  # a suffix after the dtype (_LARGE_SCALE, _GBS15360) names a variant
            for field_name, flag in RUN_SCRIPT_FLAGS.items():
                v = vals.get(field_name)
                if v is None or (isinstance(v, list) and not v and field_name != "cuda_graph_scope"):
                    continue
                if isinstance(v, list):
                    if not v:
                        continue
                    v = ",".join(map(str, v))
                argv += [flag, str(v).lower() if isinstance(v, bool) else str(v)]
            yield (path, vals["_line"], "run_script", "python scripts/performance/run_script.py " + shlex.join(argv),
                   choice, {"preset": name})


# ---------------------------------------------------------------- run_script lines in Bridge docs

def run_script_lines(src, tag: str) -> Iterator[tuple]:
    for path in src.grep_files(tag, r"run_script\.py", "*.md", "*.sh"):
        raw = src.show(tag, path)
        joined = raw.replace("\\\n", " ")
        for m in re.finditer(r"^[^\n#]*?python3?\s+\S*run_script\.py[^\n]*", joined, re.M):
            line_text = m.group(0)
            if not re.search(r"cuda_graph", line_text):
                continue
            line = raw[:raw.find(line_text.split()[0]) if line_text.split() else 0].count("\n") + 1
            cmd = line_text[line_text.find("python"):]
            cmd = re.sub(r"\s\.\.\.(\s|$)", " ", cmd).strip()
            try:
                toks = shlex.split(cmd)
            except ValueError as exc:
                yield (path, line, None, None, None, {"unconverted": f"command not tokenizable: {exc}"})
                continue
            flags = {}
            for i, t in enumerate(toks):
                if t.startswith("--cuda_graph") and i + 1 < len(toks):
                    flags[t] = toks[i + 1]
            choice = choice_from_flags(flags)
            if choice["impl"] not in ENABLED:
                continue
            yield (path, line, "run_script", shlex.join(toks), choice, {})
