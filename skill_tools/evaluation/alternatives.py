"""Options an answer offers beside its recommendation, judged like its recommendation.

"Phase 3: move to full iteration", "Alternative: TE graphs also serve decode", "if the tracker gives
you trouble, set both RNG flags back to False": a user would act on these, so an option that the
validator refuses on the task's setup makes the answer wrong, as a wrong recommended setting does.

An option is usually partial (it names only what changes), so it is laid over the recommended
config. An option that names an implementation is another answer to the task: it replaces the
recommended graph settings as a group (the option "full_iteration" drops the recommended
``cuda_graph_modules=["attn"]``) and starts again from the task's stated config, keeping only the
recommendation's settings the task does not state (companions such as the RNG tracker or the
inference scope): "Option B: keep full recompute and capture the full iteration" is judged with
the user's full recompute, not with option A's selective one. Any other option (a fallback, a
next phase) replaces only the keys it names. Only errors the option brings about are charged: those on keys the
option sets that the recommended config does not already have. The task's domain rules on config keys
judge each option too (an offload option without persisted graphs).
"""

from __future__ import annotations

from typing import Any, Callable

from skill_tools.config.model import CanonicalConfig, as_name_list
from skill_tools.evaluation.answer_context import CheckResult
from skill_tools.evaluation.outcome import apply

_IMPL = "model.cuda_graph_impl"
_INFERENCE_SCOPE = "model.inference_cuda_graph_scope"
_SCOPE = "model.cuda_graph_scope"
#: Graph settings an option that names an implementation replaces as a group.
_GROUP = ("model.cuda_graph_impl", "model.cuda_graph_modules", "model.cuda_graph_scope", "model.enable_cuda_graph",
          "model.external_cuda_graph")
#: Keys whose errors an option is charged with: the keys CUDA-graph rules read.
_CHECKED = ("cuda_graph", "te_rng_tracker", "recompute", "offload", "moe_", "check_for_nan", "NCCL_",
            "PYTORCH_CUDA_ALLOC_CONF", "packed_sequence", "pad_")
MAX_OPTIONS = 8


def laid_over(main: CanonicalConfig, option: CanonicalConfig, stated: CanonicalConfig | None = None) -> CanonicalConfig:
    """The config a user gets by taking ``option`` instead of (or on top of) the recommended ``main``."""
    # an option that turns decode graphs off ("against an eager run (`inference_cuda_graph_scope="none"`)")
    # is the eager run: like impl none, no graph setting of the main config stays
    eager_decode = not option.has(_IMPL) and option.get(_INFERENCE_SCOPE) == "none" and len(option.values) == 1
    if not option.has(_IMPL) and as_name_list(option.get(_SCOPE)) == ["full_iteration"]:
        option = apply(option, CanonicalConfig.from_nested({"model": {"cuda_graph_impl": "local"}}))
        # the 0.16-0.17 whole-iteration spelling exists with one impl only: an option naming it means local
    if not option.has(_IMPL) and not eager_decode:
        return apply(main, option)
    base = CanonicalConfig(source=main.source, fmt=main.fmt)
    off = eager_decode or option.get(_IMPL) == "none"  # a graphs-off baseline or fallback: no graph setting of the main config stays
    for key, value in main.values.items():
        if (key in _GROUP or (off and "cuda_graph" in key)) and not option.has(key):
            continue  # the option's impl replaces the recommended graph settings as a group
        base.set(key, stated.get(key) if stated is not None and stated.has(key) else value, main.locations.get(key))
    base.env.update(main.env)
    return apply(base, option)


def check_options(main: CanonicalConfig, options: list[CanonicalConfig],
                  validate: Callable[[CanonicalConfig], dict[str, Any] | None],
                  main_validation: dict[str, Any] | None, context_rules: list[str],
                  stated: CanonicalConfig | None = None, cases: dict[int, set[str]] | None = None) -> CheckResult | None:
    """A fatal check when an offered option fails validation through its own settings; a passing
    one when every option with checked settings validates; None when the answer offers none.
    ``cases``: per option, the keys of the case an if-clause offers it for ("if you run
    drop-and-pad (`pad: true`), `[moe]`"): an error whose fix is that case is the option's premise."""
    main_rules = {str(e.get("rule")) for e in (main_validation or {}).get("errors", [])}
    judged = 0
    for n, option in enumerate(options[:MAX_OPTIONS]):
        # a case that sets something the task does not have (a setting turned on, a value the
        # stated config lacks); a case that only restates the task's own setup is no other case
        case = {k for k in (cases or {}).get(n, set()) if option.get(k) not in (None, False, 0, "", [])
                and (stated is None or not stated.has(k) or stated.get(k) != option.get(k))}
        own = {k for k in option.values if any(m in k for m in _CHECKED)} | \
            {k for k in option.env if any(m in k for m in _CHECKED)}
        if not own:
            continue
        judged += 1
        changed = {k for k in own if not main.has(k) or main.get(k) != option.get(k)} | \
            {k for k in option.env if main.env.get(k) != option.env.get(k)}
        result = validate(laid_over(main, option, stated)) or {}
        for err in result.get("errors", []):
            rule = str(err.get("rule"))
            keys = set(err.get("keys") or [])
            # an option that itself writes the value the rule refuses (`use_te_rng_tracker: False`) is
            # charged even where the recommendation shares the error by leaving the key unsaid
            refused = {k for k, want in (err.get("fix") or {}).items()
                       if option.has(k) and not main.has(k) and option.get(k) != want}
            if (rule in main_rules and not refused) or not keys & changed or \
                    (rule in context_rules and not keys & set(option.values)):
                continue  # the task's own error is charged to an option only when the option sets its keys
            fix = set((err.get("fix") or {}).keys())
            if fix and not any(option.has(k) or k in option.env for k in fix):
                continue  # a companion the option leaves unsaid: an option names what changes, not everything
            if fix and all(option.has(k) and option.get(k) is None for k in fix):
                continue  # the fix would undo what the option clears ("stay dropless: capacity None"): the
                #           conflict is with a main setting the option leaves unsaid (padding to capacity)
            if (fix | keys) & case:
                continue  # the option is offered for a case the rule reads ("if you run drop-and-pad")
            shown = ", ".join(f"{k}={option.get(k)!r}" for k in sorted(own) if option.has(k))
            return CheckResult("options", "options offered are valid", 0.0,
                               f"an option the answer offers ({shown or ', '.join(sorted(own))}) fails on the "
                               f"task's setup: [{rule}] {str(err.get('message'))[:200]}", shown, fatal=True)
    if not judged:
        return None
    return CheckResult("options", "options offered are valid", 1.0,
                       f"{judged} option(s) offered beside the recommendation validate on the task's setup")


def check_option_values(options: list[CanonicalConfig], rubric: dict[str, Any] | None,
                        cases: dict[int, set[str]] | None = None) -> CheckResult | None:
    """A fatal check when an offered option sets a key the task constrains to a value the
    constraint refuses ("if the tracker gives you trouble, set `te_rng_tracker` back to False";
    "if it still doesn't capture, switch generation to `transformer_engine`"): the user would act
    on the option as on the recommendation. The task's ``config`` checks are the constraints; a check
    with a ``when`` condition is judged on an option that itself sets what the condition names
    ("sets": an FSDP option with graph mode on); one that only says a key must be left out is not
    judged here, and neither is a key the option is offered for as the if-clause's case."""
    from skill_tools.evaluation.config_checks import value_ok

    specs = [c for b in (rubric or {}).get("behaviors", []) for c in b.get("checks", []) if c.get("type") == "config"]
    for n, option in enumerate(options[:MAX_OPTIONS]):
        case = (cases or {}).get(n, set())
        for spec in specs:
            if (spec.get("when") and not _option_meets(option, spec["when"])) or spec.get("absent"):
                continue
            for key in spec.get("keys", []):
                if not option.has(key) or key in case:
                    continue
                ok, want = value_ok(option.get(key), spec)
                if not ok:
                    return CheckResult("options", "options offered keep the task's settings", 0.0,
                                       f"an option the answer offers sets {key}={option.get(key)!r}; "
                                       f"{spec.get('name') or key} needs {want}", f"{key}={option.get(key)!r}",
                                       fatal=True)
    return _option_domain(options, rubric)


def _option_meets(option: CanonicalConfig, when: dict[str, Any]) -> bool:
    """Whether the option itself sets every value a ``when: {"sets": {…}}`` condition names (any
    other condition reads the whole answer: not judged on an option)."""
    sets = when.get("sets") if set(when) == {"sets"} else None
    return bool(sets) and all(option.has(k) and option.get(k) == v for k, v in sets.items())


#: Conditions that read the answer's text or programs, not one config: not judged on an option.
_WHOLE_ANSWER = ("text_lacks", "order", "splits", "absent", "in_files")


def _option_domain(options: list[CanonicalConfig], rubric: dict[str, Any] | None) -> CheckResult | None:
    """A fatal check when an offered option breaks one of the task's domain rules (a bisect variant
    "d_full_iteration: the intended fix" for a dropless MoE): rules on config keys only."""
    from skill_tools.evaluation.domain import fired

    rules = [r for b in (rubric or {}).get("behaviors", []) for c in b.get("checks", []) if c.get("type") == "domain"
             for r in c.get("rules", []) if not r.get("same_block")
             and not any(k in cond for cond in [*r.get("when", []), *r.get("unless", [])] for k in _WHOLE_ANSWER)]
    for option in options[:MAX_OPTIONS] if rules else []:
        found = {**option.values, **{f"env.{k}": v for k, v in option.env.items()}}
        for rule, evidence in fired(rules, found, ""):
            return CheckResult("options", "options offered pass the task's rules", 0.0,
                               f"an option the answer offers breaks [{rule['id']}] {rule['message']}",
                               "; ".join(evidence)[:300], fatal=True)
    return None

