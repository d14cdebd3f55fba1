"""Checks that read the answer's suggested config: keys and values, the era-neutral CUDA-graph
intent, the era's spelling, the validator's findings, the GPU execution, environment variables.
"""

from __future__ import annotations

import re

from typing import Any

from skill_tools.config.era import DEFAULT_CURRENT, DEFAULT_LEGACY, era_for, migrations, read_intent
from skill_tools.config.model import CanonicalConfig
from skill_tools.evaluation.answer_context import GRAPH_KEY_MARKERS, AnswerContext, CheckResult, normalise
from skill_tools.evaluation.constructors import misfits
from skill_tools.evaluation.keys import misplaced


def check_config(ctx: AnswerContext, spec: dict[str, Any]) -> CheckResult:
    keys: list[str] = spec["keys"]
    cfg = ctx.config
    name = spec.get("name") or keys[0]
    present = [k for k in keys if cfg.has(k)]
    if ctx.extraction.unsafe and not spec.get("absent"):
        return CheckResult("config", name, 0.0, "the answer carries a security finding; its config is not trusted")
    if spec.get("absent"):
        if present:
            k = present[0]
            return CheckResult("config", name, 0.0, f"sets {k}={cfg.get(k)!r}, which should be left out",
                               _where(cfg, k), fatal=True)
        return CheckResult("config", name, 1.0, f"leaves {' / '.join(keys)} unset")
    counter = ctx.extraction.counter_config
    rejected = [k for k in keys if counter.has(k) and value_ok(counter.get(k), spec)[0] and "not_in" not in spec]
    if not present and spec.get("if_set"):
        # a setting the known answer keeps as it is: only an answer that writes it is judged
        return CheckResult("config", name, None, f"not applicable: the answer does not set {' / '.join(keys)}")
    if not present:
        if rejected:
            k = rejected[0]
            return CheckResult("config", name, 0.0, f"the answer rejects the required {k}={counter.get(k)!r}",
                               _where(counter, k), fatal=True)
        if "not_in" in spec:
            return CheckResult("config", name, 0.0 if spec.get("required") else 0.5,
                               f"{' / '.join(keys)} not set: the answer does not say (default applies)"
                               + (": a required setting is missing" if spec.get("required") else ""),
                               fatal=bool(spec.get("required")))
        if spec.get("required"):
            return CheckResult("config", name, 0.0, f"required companion missing: {' / '.join(keys)} is not set, "
                               "so the config fails as written" + _found_summary(cfg), fatal=True)
        return CheckResult("config", name, 0.0, f"{' / '.join(keys)} not set in the suggested config"
                           + _found_summary(cfg))
    key = present[0]
    value = cfg.get(key)
    ok, want = value_ok(value, spec)
    verdict = "as required" if ok else f"expected {want}"
    return CheckResult("config", name, 1.0 if ok else 0.0, f"{key}={value!r}: {verdict}", _where(cfg, key),
                       fatal=not ok)


def value_ok(value: Any, spec: dict[str, Any]) -> tuple[bool, str]:
    if "equals" in spec:
        return _same(value, spec["equals"]), f"{spec['equals']!r}"
    if "in" in spec:
        return any(_same(value, v) for v in spec["in"]), f"one of {spec['in']!r}"
    if "not_in" in spec:
        return not any(_same(value, v) for v in spec["not_in"]), f"none of {spec['not_in']!r}"
    num = _number(value)
    if "at_least" in spec:
        return num is not None and num >= spec["at_least"], f">= {spec['at_least']}"
    if "at_most" in spec:
        return num is not None and num <= spec["at_most"], f"<= {spec['at_most']}"
    return True, "any value"


def _same(a: Any, b: Any) -> bool:
    if isinstance(b, bool) or isinstance(a, bool):
        return _boolish(a) is not None and _boolish(a) == _boolish(b)
    if isinstance(b, (int, float)) and not isinstance(b, bool):
        return _number(a) == b
    if isinstance(b, list) or isinstance(a, list):
        from skill_tools.config.model import as_name_list
        return sorted(as_name_list(a)) == sorted(as_name_list(b))
    return str(a).strip().lower() == str(b).strip().lower()


def _boolish(v: Any) -> bool | None:
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float)):
        return bool(v)
    if isinstance(v, str) and v.strip().lower() in ("true", "1", "yes", "on"):
        return True
    if isinstance(v, str) and v.strip().lower() in ("false", "0", "no", "off", "none", "null"):
        return False
    return None


def _number(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    try:
        return float(str(v))
    except ValueError:
        return None


def _where(cfg: CanonicalConfig, key: str) -> str:
    loc = cfg.locations.get(key)
    return f"{key}={cfg.get(key)!r}" + (f" (line {loc.line})" if loc and loc.line else "")


def _found_summary(cfg: CanonicalConfig) -> str:
    if not cfg.values and not cfg.env:
        return " (no config extracted from the answer)"
    keys = [k for k, _ in cfg][:6]
    return f" (found: {', '.join(keys)}{', …' if len(cfg.values) > 6 else ''})"


def check_graph(ctx: AnswerContext, spec: dict[str, Any]) -> CheckResult:
    cfg = ctx.config
    intent = read_intent(cfg)
    name = spec.get("name") or "CUDA-graph settings"
    if ctx.extraction.unsafe:
        return CheckResult("graph", name, 0.0, "the answer carries a security finding; its config is not trusted")
    spelled = ", ".join(f"{k}={cfg.get(k)!r}" for k in sorted(set(intent.spelled_by.values())) if cfg.has(k))
    desc = f"impl={intent.impl}, modules={list(intent.modules) or '(whole layer)'}"
    if intent.inference_scope:
        desc += f", inference_scope={intent.inference_scope}"
    problems: list[str] = []
    if "enabled" in spec and intent.enabled != spec["enabled"]:
        problems.append("graphs enabled" if intent.enabled else "graphs not enabled")
    if "impl" in spec and intent.impl not in spec["impl"]:
        problems.append(f"impl {intent.impl!r} not in {spec['impl']}")
    mods = set(intent.modules)
    if "modules_include" in spec:
        miss = [m for m in spec["modules_include"] if m not in mods]
        if miss:
            problems.append(f"missing module(s) {miss}")
    excluded_written: list[str] = []
    if "modules_exclude" in spec:
        bad = excluded_written = [m for m in spec["modules_exclude"] if m in mods]
        if bad or (intent.enabled and intent.impl == "transformer_engine" and not mods
                   and spec.get("whole_layer_counts_as_excluded", True)):
            problems.append(f"captures excluded module(s) {bad or '(whole layer)'}")
    if "modules_subset_of" in spec:
        allowed = set(spec["modules_subset_of"])
        extra = sorted(mods - allowed)
        if extra or (intent.impl == "transformer_engine" and not mods and "whole_layer" not in allowed):
            problems.append(f"modules {extra or '(whole layer)'} outside {sorted(allowed)}")
    if "inference_scope" in spec and intent.effective_inference_scope not in spec["inference_scope"]:
        problems.append(f"inference scope {intent.effective_inference_scope!r} not in {spec['inference_scope']}")
    if problems:
        # Graphs configured the wrong way contradict the task; no graph settings at all is only vague,
        # and so is a module list that prose may state in words the readers do not follow.
        # A module list the answer writes with a module the task excludes is meant for graphs even
        # where the answer leaves the impl to the user's config ("+ cuda_graph_modules = [..., "moe"]").
        fatal = intent.enabled or spec.get("enabled") is False or bool(excluded_written)
        unread = not mods and not _graph_written(ctx) and all("module" in p for p in problems)
        if unread:
            problems.append("no module list was read, and the impl comes from prose: not held against the answer")
        return CheckResult("graph", name, 0.0, f"{desc}: " + "; ".join(problems), spelled, fatal=bool(fatal) and not unread)
    return CheckResult("graph", name, 1.0, f"{desc}: as required", spelled)


def check_era_spelling(ctx: AnswerContext, spec: dict[str, Any]) -> CheckResult:
    era = era_for(DEFAULT_CURRENT if spec["era"] == "current" else DEFAULT_LEGACY)
    cfg = ctx.config
    name = spec.get("name") or f"keys spelled for {era.label}"
    graph_keys = [k for k in cfg.values if any(m in k for m in GRAPH_KEY_MARKERS)]
    if ctx.extraction.unsafe:
        return CheckResult("era_spelling", name, 0.0, "the answer carries a security finding; its config is not trusted")
    if not graph_keys:
        return CheckResult("era_spelling", name, 0.0, "no CUDA-graph keys in the suggested config")
    found = migrations(cfg, era)
    if found:
        m = found[0]
        return CheckResult("era_spelling", name, 0.0, f"not {era.label}: {m.message}", f"{m.key}={m.found!r}",
                           fatal=True)
    return CheckResult("era_spelling", name, 1.0, f"graph keys ({', '.join(sorted(graph_keys))}) are correct for {era.label}")


def check_validates(ctx: AnswerContext, spec: dict[str, Any]) -> CheckResult:
    name = spec.get("name") or "extracted config validates"
    if ctx.extraction.unsafe:
        return CheckResult("validates", name, 0.0, "the answer carries a security finding; its config is not validated")
    misfit = next(iter(misfits(ctx.extraction.blocks, ctx.era.name)), None)
    if misfit is not None:  # InferenceConfig(inference_cuda_graph_scope=…): the object cannot be built
        return CheckResult("validates", name, 0.0, misfit.message(), f"line {misfit.line}", fatal=True)
    if not ctx.config.values:
        return CheckResult("validates", name, 0.0, "no config extracted from the answer")
    if not any(checked_key(k) for k in ctx.answer_keys):
        return CheckResult("validates", name, 0.0, "the answer's config sets nothing the CUDA-graph rules check "
                           f"(found: {', '.join(sorted(ctx.answer_keys)[:4])}): nothing to validate")
    patch = next((f for f in ctx.extraction.findings if f.kind == "patch"), None)
    if patch is not None:
        return CheckResult("validates", name, 0.0, f"{patch.message}: the validator cannot see what that changes, "
                           "so the config is not the one the user would run", patch.evidence, fatal=True)
    wrong_place = misplaced(ctx.answer_keys, ctx.text)
    if wrong_place:
        key, home = wrong_place[0]
        return CheckResult("validates", name, 0.0, f"sets {key}, a field its section does not have (it is {home}); "
                           "Bridge refuses the key, so the setting never takes effect", key, fatal=True)
    v = ctx.validation or {"skipped": "not validated"}
    if "skipped" in v:
        return CheckResult("validates", name, None, f"skipped: {v['skipped']}")
    errors = v.get("errors", [])
    own = answer_errors(errors, ctx.answer_keys, v.get("context_rules", []))
    other = [e for e in errors if e not in own]
    if own:
        first = own[0]
        return CheckResult("validates", name, 0.0,
                           f"{len(own)} error finding(s) for MCore {v.get('mcore_version')} on the task's setup: "
                           f"[{first.get('rule')}] {first.get('message')}", ", ".join(first.get("keys", [])), fatal=True)
    for w in v.get("warnings", []):  # the run starts, but what the answer writes silently does nothing
        fix = w.get("fix") or {} if w.get("level") == "runtime" else {}
        shown = _against_fix(ctx, fix, ctx.answer_keys - ctx.restated)
        if shown:
            return CheckResult("validates", name, 0.0, f"writes {shown}, which MCore {v.get('mcore_version')} runs without "
                               f"its effect on the task's setup: [{w.get('rule')}] {w.get('message')}", shown, fatal=True)
    note = (f"; not charged to the answer, which does not set their keys: "
            + ", ".join(sorted({str(e.get('rule')) for e in other}))) if other else ""
    return CheckResult("validates", name, 1.0,
                       f"no error findings for MCore {v.get('mcore_version')} on the task's setup "
                       f"({len(v.get('warnings', []))} warning(s)){note}")


_CHECKED_MARKERS = GRAPH_KEY_MARKERS + ("recompute", "offload", "moe_", "num_moe_experts", "check_for_nan",
                                        "gradient_accumulation_fusion", "NCCL_", "PYTORCH_CUDA_ALLOC_CONF",
                                        "CUDA_", "parallel_size", "dropout", "fp8", "packed_sequence")


def checked_key(key: str) -> bool:
    """A key the CUDA-graph rules read (or a graph-related environment variable)."""
    return any(m in key for m in _CHECKED_MARKERS)


def answer_errors(errors: list[dict[str, Any]], answer_keys: frozenset[str],
                  context_rules: list[str]) -> list[dict[str, Any]]:
    """The validator errors the answer is charged with: those on keys it sets, and those its settings
    bring about (absent when the task's stated setup is validated alone: an impl written without the
    RNG tracker it needs). An error the stated setup has on its own, on keys the answer leaves alone,
    is the task's, not the answer's."""
    return [e for e in errors if not e.get("keys") or set(e["keys"]) & answer_keys
            or (answer_keys and str(e.get("rule")) not in context_rules)]


def _against_fix(ctx: AnswerContext, fix: dict[str, Any], written: frozenset[str]) -> str:
    """The settings among ``written`` whose value in the answer's config is not the finding's fix,
    shown as ``key=value, …`` ("" when none is)."""
    return ", ".join(f"{k}={ctx.config.get(k)!r}" for k, want in fix.items()
                     if k in written and k in ctx.config.values and not _same(ctx.config.get(k), want))


def check_written_settings(ctx: AnswerContext, spec: dict[str, Any]) -> CheckResult:
    """What an answer writes down where its task asks for no config (a diagnosis, a fix, a decision):
    a value the validator says to change is a wrong instruction (``--no-rl-persist-cuda-graphs``
    beside KV-cache offload). Only values the answer writes are judged: an error that turns on an
    implementation the answer does not state, or on a companion it omits, is not its doing, and a
    diagnosis need not spell out a whole config. A runtime warning with a fix counts as a refusal:
    the run starts but silently does not do what the setting is for (TE graphs for decode run eager)."""
    name = spec.get("name") or "the settings it writes are accepted"
    v = ctx.validation or {}
    written = ctx.answer_keys - ctx.restated  # the user's own setting quoted back is not an instruction
    wrong_place = [] if ctx.extraction.unsafe else misplaced(written, ctx.text)
    if wrong_place:
        key, home = wrong_place[0]
        return CheckResult("written_settings", name, 0.0, f"writes {key}, a field its section does not have (it is "
                           f"{home}); Bridge refuses the key, so the setting never takes effect", key, fatal=True)
    misfit = None if ctx.extraction.unsafe else next(iter(misfits(ctx.extraction.blocks, ctx.era.name)), None)
    if misfit is not None:
        return CheckResult("written_settings", name, 0.0, misfit.message(), f"line {misfit.line}", fatal=True)
    if ctx.extraction.unsafe or "skipped" in v or not any(checked_key(k) for k in written):
        return CheckResult("written_settings", name, None, "skipped: no checked setting written, or not validated")
    silent = [w for w in v.get("warnings", []) if w.get("level") == "runtime" and w.get("fix")]
    for err in v.get("errors", []) + silent:
        fix = err.get("fix") or {}
        if "model.cuda_graph_impl" in (err.get("keys") or []) and "model.cuda_graph_impl" not in written:
            continue  # the error turns on graphs being on or off, which the answer does not say: not its doing
        shown = _against_fix(ctx, fix, written)
        if shown:
            return CheckResult("written_settings", name, 0.0,
                               f"writes {shown}, which MCore {v.get('mcore_version')} "
                               f"{'refuses' if err.get('severity') == 'error' else 'runs without its effect'} on the task's setup: "
                               f"[{err.get('rule')}] {err.get('message')}", shown, fatal=True)
    stated_rules = set(v.get("context_rules") or [])
    for err in v.get("errors", []):  # an environment or graphs the answer turns on that the run then refuses is its doing
        mine = [k for k in err.get("keys") or [] if k.startswith("env.") and k[4:] in written and k[4:] in ctx.config.env]
        impl = "model.cuda_graph_impl"
        if impl in (err.get("keys") or []) and impl in written and ctx.config.get(impl) not in (None, "none") \
                and impl not in (err.get("fix") or {}) and err.get("rule") not in stated_rules:
            shown = f"{impl}={ctx.config.get(impl)!r}"  # --cuda-graph-impl full_iteration without --no-check-for-nan-…
            return CheckResult("written_settings", name, 0.0, f"sets {shown} without the companion it needs on the "
                               f"task's setup: [{err.get('rule')}] {err.get('message')}", shown, fatal=True)
        if mine and err.get("rule") not in stated_rules and not any(k in (err.get("fix") or {}) for k in mine):
            shown = ", ".join(f"{k[4:]}={ctx.config.env[k[4:]]!r}" for k in mine)
            return CheckResult("written_settings", name, 0.0, f"sets {shown}, which the run refuses on the task's setup "
                               f"without the companion it needs: [{err.get('rule')}] {err.get('message')}", shown, fatal=True)
    return CheckResult("written_settings", name, 1.0, "no value it writes is refused on the task's setup")


def check_executes(ctx: AnswerContext, spec: dict[str, Any]) -> CheckResult:
    name = spec.get("name") or "extracted config executes"
    if ctx.extraction.unsafe:
        return CheckResult("executes", name, 0.0, "the answer carries a security finding; its config is not executed")
    ex = ctx.execution
    if ex is None:
        return CheckResult("executes", name, None, "skipped: not requested (run with --execute on a GPU machine)")
    if "skipped" in ex:
        return CheckResult("executes", name, None, f"skipped: {ex['skipped']}")
    ok = bool(ex.get("captured")) and bool(ex.get("replayed")) and bool(ex.get("loss_ok"))
    summary = (f"captured={ex.get('captured')}, replayed={ex.get('replayed')}, loss_ok={ex.get('loss_ok')}"
               + (f", error_class={ex.get('error_class')}" if ex.get("error_class") else "")
               + (f"; refused because of the {ex['refused_by']}" if ex.get("refused_by") else ""))
    evidence = ex.get("evidence")
    if isinstance(evidence, (list, tuple)):
        evidence = "; ".join(map(str, evidence[:3]))
    return CheckResult("executes", name, 1.0 if ok else 0.0, summary, str(evidence or "")[:300])


def check_no_graph_config(ctx: AnswerContext, spec: dict[str, Any]) -> CheckResult:
    name = spec.get("name") or "no CUDA-graph config"
    # a setting that keeps graphs off (`cuda_graph_impl="none"`, as a stock recipe ships it) is no graph advice
    keys = [k for k, v in ctx.config.values.items() if any(m in k for m in GRAPH_KEY_MARKERS)
            and not (v in (None, False, "", []) or str(v).lower() in ("none", "false", "null"))]
    env = [k for k in ctx.config.env if k in ("NCCL_GRAPH_REGISTER", "CUDA_GRAPHS_USE_NODE_PRIORITY")]
    if keys or env:
        k = (keys or env)[0]
        return CheckResult("no_graph_config", name, 0.0, f"suggests CUDA-graph settings: {', '.join(keys + env)}",
                           _where(ctx.config, k) if keys else f"{k}={ctx.config.env[k]!r}", fatal=True)
    return CheckResult("no_graph_config", name, 1.0, "suggests no CUDA-graph settings")


def check_env(ctx: AnswerContext, spec: dict[str, Any]) -> CheckResult:
    var = spec["var"]
    name = spec.get("name") or var
    env = ctx.config.env
    if ctx.extraction.unsafe and not spec.get("absent"):
        return CheckResult("env", name, 0.0, "the answer carries a security finding; its config is not trusted")
    if spec.get("absent"):
        if var in env:
            return CheckResult("env", name, 0.0, f"sets {var}={env[var]!r}, which should not be set", f"{var}={env[var]}",
                               fatal=True)
        return CheckResult("env", name, 1.0, f"leaves {var} unset")
    if var not in env:
        return CheckResult("env", name, 0.0, ("required companion missing: " if spec.get("required") else "")
                           + f"{var} not set in the suggested environment"
                           + (f" (found: {', '.join(sorted(env))})" if env else ""), fatal=bool(spec.get("required")))
    if spec.get("required") and _only_in_prose(ctx, var):
        return CheckResult("env", name, 0.0, f"required companion missing: {var} is only mentioned in prose, not in the "
                           "environment the answer's own code sets", fatal=True)
    value = env[var]
    if "equals" in spec:
        ok = value.strip() == spec["equals"]
        want = f"= {spec['equals']!r}"
    else:
        ok = normalise(spec["contains"]) in normalise(value)
        want = f"to contain {spec['contains']!r}"
    return CheckResult("env", name, 1.0 if ok else 0.0, f"{var}={value!r}" + ("" if ok else f": expected {want}"),
                       f"{var}={value}", fatal=not ok)


def _only_in_prose(ctx: AnswerContext, var: str) -> bool:
    """The answer writes an environment down (a code block, a script, a table, a changed file) and
    ``var`` is not in it, only in prose ("older guides pair it with `NCCL_GRAPH_REGISTER=0`"): what
    the user runs is what is written."""
    from skill_tools.evaluation.precedence import WRITTEN_ORIGINS

    key = "env." + var
    written = [b for b in ctx.extraction.blocks if b.origin in WRITTEN_ORIGINS and any(k.startswith("env.") for k in b.keys)]
    return bool(written) and not any(key in b.keys for b in written)


def _graph_written(ctx: AnswerContext) -> bool:
    """The answer writes graph settings down (a block, a table row, a changed file), not only in prose."""
    from skill_tools.evaluation.precedence import LIST_KEYS, writes

    return writes(ctx.extraction.blocks, ("model.cuda_graph_impl",) + LIST_KEYS)
