"""Keys as an answer writes them, mapped onto the keys the rules read.

Answers nest settings in launcher files and write them under the section a user knows:

- ``executor: {env_vars: {NCCL_GRAPH_REGISTER: "0"}}`` (NeMo-Run), ``env:``/``environment:`` maps:
  environment variables;
- ``recipe_overrides: {model.cuda_graph_impl: …}``, ``config: {model: {…}}``: a config nested under
  a launcher's own key (the path from the first ConfigContainer section on is the key);
- ``comm_overlap.overlap_param_gather_with_optimizer_step``: a field the rules read under another
  section (``optimizer.``); the rules' own key is added beside the answer's, so the rule judges it
  (only where the answer's section has that field: a key under a section without it goes nowhere).

- ``transformer_config_overrides: {…}``, ``inference_config: {…}``: a group named for a config object,
  read as the model's fields or as the section the object stands for; a list named for a command
  line (``megatron_lm_flags: ["--cuda-graph-impl", …]``) is read as that command line, and a list of
  Python statements in strings (``"fix": ["cfg.model.cuda_graph_impl = \"local\"", …]``) as Python.

The readers place an unknown top-level key under ``model.``; that prefix is dropped again where a
section follows it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

from skill_tools.config import pysource
from skill_tools.config.model import SECTIONS, CanonicalConfig
from skill_tools.evaluation.envelopes import RESULT_KEY, SOURCE_KEY

#: Python objects people name for MCore's TransformerConfig / Bridge's model provider.
_MODEL_ROOTS = frozenset({"model_config", "model_cfg", "transformer_config", "tf_config", "provider", "model_provider",
                          "gpt_config", "mcore_config"})
#: A section named for Megatron's own arguments: a TOML ``[megatron]`` table, an Ansible
#: ``mbridge_model_overrides`` map, ``mcore:`` — its keys are the model's.
_MODEL_ROOT_NAME = re.compile(r"^(?:\w+_)?(?:megatron|mcore|megatron_core|megatron_args|mlm_args|model_args|model_overrides|"
                              r"(?:transformer|model|mcore)_config_(?:overrides|kwargs|args))$")
#: A group named for a section's config object (``inference_config``, ``ddp_config``): that section.
_SECTION_OBJECT = re.compile(r"^(\w+?)_(?:config|cfg)$")


def _model_root(name: str) -> bool:
    return name in _MODEL_ROOTS or bool(_MODEL_ROOT_NAME.match(name))


#: (``variables``: conda environment.yml, GitLab CI and Azure Pipelines put the process environment there)
_ENV_PARENTS = frozenset({"env", "env_vars", "envs", "environment", "environment_variables", "env_variables", "variables"})
_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]{2,}$")
#: Parallel sizes as people write them ("TP=8 (one node)", ``PP=4`` in a launch script).
PARALLEL = {"TP": "model.tensor_model_parallel_size", "PP": "model.pipeline_model_parallel_size",
            "EP": "model.expert_model_parallel_size", "CP": "model.context_parallel_size",
            "VPP": "model.virtual_pipeline_model_parallel_size", "ETP": "model.expert_tensor_parallel_size"}


@lru_cache(maxsize=1)
def rule_keys() -> dict[str, str]:
    """Leaf name -> the one key the rule catalog reads it under (leaves read in one place only)."""
    import yaml

    catalog = Path(__file__).resolve().parent.parent / "rules" / "catalog.yaml"
    try:
        data = yaml.safe_load(catalog.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return {}
    seen: dict[str, set[str]] = {}
    for rule in data.get("rules", []):
        for key in rule.get("keys") or []:
            if isinstance(key, str) and "." in key:
                seen.setdefault(key.rsplit(".", 1)[1], set()).add(key)
    return {leaf: next(iter(keys)) for leaf, keys in seen.items() if len(keys) == 1}


_ARGV_KEYS = frozenset({"command", "args", "argv", "cmd", "entrypoint", "script_args"})
_MAX_WALK = 2000
#: A list named for a command line (``megatron_lm_flags``, ``extra_args``, ``cli_flags``) — read as one
#: when it holds ``--flags``.
_ARGV_NAME = re.compile(r"^(?:flags|\w+_(?:args|argv|flags|cmd|command))$")


def argv_key(name: str) -> bool:
    return name in _ARGV_KEYS or bool(_ARGV_NAME.match(name))


def _launcher_parts(value: Any, out: CanonicalConfig, source: str) -> None:
    """Settings inside a launcher manifest (a Kubernetes PyTorchJob, a Slurm/NeMo-Run spec): ``env:``
    lists of ``{name, value}`` become environment variables, ``command:``/``args:`` lists with
    ``--flags`` are read as the Megatron-LM command line they are (parsed, never run)."""
    import shlex

    from skill_tools.config.readers import read_text

    for node in mappings(value):
        for k, v in node.items():
            name = str(k).lower()
            if name in _ENV_PARENTS and isinstance(v, list):
                for item in v:
                    if isinstance(item, dict) and _ENV_NAME.match(str(item.get("name", ""))) and "value" in item:
                        out.env[str(item["name"])] = _env_value(item["value"])
                    elif isinstance(item, str) and _ENV_NAME.match(item.partition("=")[0]) and "=" in item:
                        var, _, val = item.partition("=")  # docker-compose ``- NCCL_GRAPH_REGISTER=0``
                        out.env[var] = val.strip().strip("'\"")
            elif name in _ENV_PARENTS and isinstance(v, dict):
                for var, val in v.items():  # Ansible ``environment:``, compose ``environment:`` maps
                    if _ENV_NAME.match(str(var)) and not isinstance(val, (dict, list)):
                        out.env[str(var)] = _env_value(val)
            elif argv_key(name) and isinstance(v, (list, str)) and (name in _ARGV_KEYS or isinstance(v, list)):
                tokens = [str(t) for t in v] if isinstance(v, list) else [v]
                flat = [t for tok in tokens for t in (shlex.split(tok) if " " in tok else [tok])]
                script = max((i for i, t in enumerate(flat) if t.endswith(".py")), default=-1)
                flat = flat[script + 1:]  # torchrun's own flags (--nproc-per-node) come before the script
                overrides = [t for t in flat if "=" in t and not t.startswith("-") and "." in t.split("=", 1)[0]]
                flags = shlex.join(flat) if any(t.startswith("--") for t in flat) else ""
                for fmt, text in (("megatron_lm", flags), ("hydra", "\n".join(overrides))):  # run_recipe.py's `model.x=…`
                    if not text:
                        continue
                    try:
                        read = read_text(text, fmt=fmt, source=source)
                    except Exception:  # a command the reader does not understand adds nothing
                        continue
                    for key, val in read.values.items():
                        if not out.has(key):
                            out.set(key, val)


#: A Python statement that sets a field of a config section: ``cfg.model.cuda_graph_impl = "local"``.
_STATEMENT = re.compile(r"^\s*(?:cfg|config|recipe|c)\.[a-z_]\w*\.[a-z_]\w*\s*=\s*\S")


def _statement_strings(value: Any) -> bool:
    """A list of strings (or one string of lines) that are such statements, every one of them."""
    lines = value if isinstance(value, list) else str(value).split("\n") if isinstance(value, str) and "\n" in value else []
    return bool(lines) and all(isinstance(v, str) and _STATEMENT.match(v) for v in lines)


def _read_statements(value: Any, out: CanonicalConfig, source: str) -> None:
    """Read those statements as the Python they are (parsed, never run); unreadable ones add nothing."""
    from skill_tools.config.read_python import read_python

    try:
        read = read_python("\n".join(value) if isinstance(value, list) else value, source)
    except Exception:  # a statement the reader does not understand adds nothing
        return
    for key, val in read.values.items():
        out.set(key, val)
    out.env.update(read.env)


def mappings(value: Any) -> Iterator[dict]:
    """Every mapping in a parsed document, at any depth (bounded by ``_MAX_WALK`` nodes): where a
    launcher manifest keeps its environment and argument lists."""
    stack, seen = [value], 0
    while stack and seen < _MAX_WALK:
        node = stack.pop()
        seen += 1
        if isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, dict):
            yield node
            stack.extend(v for v in node.values() if isinstance(v, (list, dict)))


def _env_value(val: Any) -> str:
    return "" if val is None else str(val).lower() if isinstance(val, bool) else str(val)


def launcher_document(data: Any, source: str) -> CanonicalConfig:
    """What a launcher document that is a list at its top (an Ansible task list, a Compose/CI step
    list) sets: its environment maps and its Megatron-LM command lines. The config readers take a
    mapping only; this reads the launcher parts of the rest, and nothing else."""
    out = CanonicalConfig(source=source, fmt="answer")
    _launcher_parts(data, out, source)
    return out


def _a_field_there(key: str) -> bool:
    """Whether the section the answer writes ``key`` under has that field: ``comm_overlap.
    overlap_param_gather_with_optimizer_step`` is a real field (judged as the rules' key),
    ``train.check_for_nan_in_loss`` is not (TrainingConfig has no such field; the setting goes
    nowhere, so it is not read as the rules' ``rerun_state_machine.check_for_nan_in_loss``)."""
    from skill_tools.rules.key_checks import section_keys

    section, _, rest = key.partition(".")
    known = section_keys().get(section)
    return known is None or rest.split(".", 1)[0] in known


#: A group that names a config object of its own (NeMo-RL's ``mcore_generation_config``, ``megatron_cfg``):
#: its fields configure that object, not the section around it.
_HOLDER = re.compile(r"(?:^|_)(?:config|cfg|conf|args|kwargs|overrides|params)$")


def _ungrouped(key: str) -> str:
    """``model.cuda_graphs.cuda_graph_impl`` -> ``model.cuda_graph_impl``: a grouping table the
    answer invents inside a section (TOML ``[model.cuda_graphs]``) whose leaf is a field of that
    section. The group is not a field, so the leaf is what the answer means to set (and is judged
    as such: its era, its value)."""
    from skill_tools.rules.key_checks import section_keys

    parts = key.split(".")
    if len(parts) != 3:
        return key
    known = section_keys().get(parts[0])
    if not known or parts[1] in known or parts[2] not in known or parts[1].startswith("_") or _HOLDER.search(parts[1]):
        return key  # a `_common: &anchor` template is no setting; `mcore_generation_config` is another config
    return f"{parts[0]}.{parts[2]}"


def _placeholder(value: Any) -> bool:
    """``...``, ``…``, ``[...]``, ``<...>``: an elided value, not one to judge."""
    if isinstance(value, list):
        return bool(value) and all(_placeholder(v) for v in value)
    return isinstance(value, str) and value.strip(" <>[]'\"") in ("...", "…")


def normalise_keys(cfg: CanonicalConfig, text: str = "") -> CanonicalConfig:
    """A copy of ``cfg`` with nested env maps as env, nested configs unwrapped and aliases added.
    With the block's ``text``, a bare top-level key the reader put under ``model.`` that the model
    has no field for, but one other section has (``rl_persist_cuda_graphs: true`` in an args file),
    is that section's unless the text itself writes it under ``model``."""
    out = CanonicalConfig(source=cfg.source, fmt=cfg.fmt)
    for name, value in cfg.env.items():
        if name in PARALLEL and str(value).strip().isdigit():
            out.set(PARALLEL[name], int(str(value).strip()))
        else:
            out.env[name] = value
    out.unparsed.extend(cfg.unparsed)
    aliases = rule_keys()
    skipped = set()  # keys read otherwise (an argument list) or not the answer's (the input a report fixes)
    heads = {k.split(".", 1)[0] for k in cfg.values}
    if any(RESULT_KEY.match(h) for h in heads):  # {"input": {…}, "fixed_config": {…}}: the fix is the config
        skipped |= {k for k in cfg.values if SOURCE_KEY.match(k.split(".", 1)[0])}
    for key, value in cfg.values.items():
        last = key.rsplit(".", 1)[-1].lower()
        if argv_key(last) and isinstance(value, list) and any(str(t).startswith("--") for t in value):
            skipped.add(key)  # `args:` over `- --cuda-graph-impl=…` items at the top: the command line itself
            _launcher_parts({last: value}, out, cfg.source)
        elif _statement_strings(value):
            skipped.add(key)  # "fix": ["cfg.model.cuda_graph_impl = \"local\"", …]: Python carried in strings
            _read_statements(value, out, cfg.source)
        elif isinstance(value, (list, dict)):
            _launcher_parts(value, out, cfg.source)
    for key, value in cfg.values.items():
        if key in skipped or _placeholder(value):
            continue  # `cuda_graph_modules = [...]` in a sentence stands for any list: no value
        parts = key.split(".")
        if len(parts) >= 2 and _model_root(parts[0]):
            parts = ["model"] + parts[1:]
        elif len(parts) >= 3 and parts[0] == "model" and _model_root(parts[1]):
            parts = ["model"] + parts[2:]
        obj = _SECTION_OBJECT.match(parts[1]) if len(parts) >= 3 and parts[0] == "model" else None
        if obj and obj.group(1) in SECTIONS and obj.group(1) != "model":
            parts = parts[1:]  # {"inference_config": {"num_cuda_graphs": 16}} under the model: the inference section's
        obj = _SECTION_OBJECT.match(parts[0]) if len(parts) >= 2 else None
        if obj and obj.group(1) in SECTIONS:
            parts = [obj.group(1)] + parts[1:]
        key = ".".join(parts)
        if len(parts) >= 2 and _ENV_NAME.match(parts[-1]) and parts[-2] in _ENV_PARENTS:
            out.env[parts[-1]] = "" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
            continue
        inner = next((i for i in range(1, len(parts) - 1) if parts[i] in SECTIONS), None)
        if inner is not None and parts[0] == "model" and len(parts) > 2 and parts[1] not in SECTIONS:
            key = ".".join(parts[inner:])
        elif inner is not None and parts[0] not in SECTIONS:
            key = ".".join(parts[inner:])
        key = _ungrouped(key)
        out.set(key, value, cfg.locations.get(key))
        canonical = aliases.get(key.rsplit(".", 1)[-1])
        if canonical and canonical != key and not cfg.has(canonical) and key.split(".")[0] in SECTIONS \
                and (_a_field_there(key) or (text and key.count(".") == 1 and key.startswith("model.")
                                             and not written_under_model(key[6:], text))):
            out.set(canonical, value, cfg.locations.get(key))
    return out


_MODEL_HEAD = re.compile(r"^([ \t]*)(?:model:\s*(?:#.*)?|\[model\]\s*(?:#.*)?)$", re.M)


def written_under_model(field_name: str, text: str) -> bool:
    """Whether ``text`` itself puts ``field_name`` in the model section: ``model.<field>`` (Python,
    overrides), a YAML ``model:`` block or a TOML ``[model]`` table holding ``<field>:``/``<field> =``,
    or a JSON ``"model": {…}`` object naming it."""
    name = re.escape(field_name)
    if re.search(r"(?<![\w-])model\." + name + r"\b", text) or \
            re.search(r'"model"\s*:\s*\{[^{}]*"' + name + r'"\s*:', text):
        return True
    lines = text.split("\n")
    starts = {text.count("\n", 0, m.start()): m for m in _MODEL_HEAD.finditer(text)}
    for i, m in starts.items():
        indent, toml = len(m.group(1).expandtabs()), m.group(0).strip().startswith("[")
        for line in lines[i + 1:]:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if toml and line.lstrip().startswith("["):
                break
            if not toml and len(line) - len(line.lstrip()) <= indent:
                break
            if re.match(r"^\s*" + name + (r"\s*=" if toml else r"\s*:"), line):
                return True
    return False


def misplaced(keys, text: str = "") -> list[tuple[str, str]]:
    """``(train.cuda_graph_impl, model.cuda_graph_impl)``: a key written under a ConfigContainer
    section that has no such field while another section has it. Bridge refuses the unknown field
    (or, in Python, sets an attribute nothing reads), so the setting never reaches its section.
    A ``model.`` key counts only where ``text`` (the answer) itself puts it there
    (:func:`written_under_model`: ``cfg.model.fsdp_all_gather_in_start_param_sync = False``, a
    ``model:`` block): readers place bare unknown keys under ``model.`` themselves."""
    from skill_tools.rules.key_checks import section_keys

    sections = section_keys()
    out = []
    for key in sorted(keys):
        section, _, rest = key.partition(".")
        field_name = rest.split(".", 1)[0]
        known = sections.get(section)
        if known is None or not field_name or field_name in known:
            continue
        if section == "model" and not written_under_model(field_name, text):
            continue
        homes = [f"{s}.{field_name}" for s in sorted(sections) if s != section and field_name in sections[s]]
        if homes:  # every section that has the field: "model.seed" belongs in dataset.seed or rng.seed
            out.append((key, " or ".join(homes)))
    return out


def call_env(text: str) -> dict[str, str]:
    """Environment variables a Python launcher passes as a literal dict keyword
    (``run.SlurmExecutor(env_vars={"NCCL_GRAPH_REGISTER": "0"})``); parsed with ``ast``, never run."""
    import ast

    try:
        tree = pysource.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.keyword) and str(node.arg).lower() in _ENV_PARENTS
                and isinstance(node.value, ast.Dict)):
            continue
        for k, v in zip(node.value.keys, node.value.values):
            if isinstance(k, ast.Constant) and _ENV_NAME.match(str(k.value)) and isinstance(v, ast.Constant):
                out[str(k.value)] = str(v.value).lower() if isinstance(v.value, bool) else str(v.value)
    return out

