"""Check ``domain``: rules of the off-topic domain a negative task asks about (DeepSpeed's config,
Hugging Face's TrainingArguments, Triton's launch contract, NCCL's environment, …), as data.

A negative task's answer is wrong when it gets its own question wrong, and much of that is a setting
the domain's own code refuses or ignores: ``"stage": 3`` beside ``zero_optimization`` instead of in
it, ``TrainingArguments(mixed_precision=…)``, a non-power-of-two ``BLOCK_SIZE``. The CUDA-graph
extraction reads what the answer recommends; this module flattens it into dotted paths and matches
the task's rules against them:

- config keys the extraction recommends, with their section (``model.zero_optimization.stage``);
- environment variables (``env.NCCL_IB_DISABLE``);
- Python of the answer's recommended code blocks, parsed with :mod:`ast` and never run: a call's
  keywords under the callee's last name (``py:TrainingArguments.bf16``), its positional arguments
  (``py:autotune.#1``), the call itself (``py:autotune()``), a kernel launch ``k[grid](…)`` as
  ``py:k[].BLOCK_SIZE``, dict literals flattened below them (a bare one below ``py:{}``),
  assignments as ``py:=NAME``, a definition's decorators, outermost first, as ``py:@NAME``, a call made
  inside ``with torch.cuda.stream(...)`` also as ``py:NAME()@stream``; code spans in sentences that recommend them are read the same way.

A rule is ``{"id", "when": [cond, …], "unless": [cond, …], "message", "source"}``; it fires when
every ``when`` condition holds and no ``unless`` condition does. A condition is ``{"path": regex}``
(searched in each path) with one test of the value (``equals``, ``in``, ``not_in``, ``above``,
``power_of_two``, ``lacks``: a string without that part) or ``"absent": true`` (no path matches),
optionally ``not_path`` (paths to skip) and ``in_files`` (only settings of whole code blocks), or
``{"text_lacks": regex}`` on the answer's text, or ``{"order": [regex, regex]}``: one recommended
Python program calls the first (``dotted.callee(args)``) and after it the second, or
``{"splits": {"total": 80, "by": [regex, …]}}``: the numbers set at those paths multiply to a size
that does not divide the total (80 layers over PP x VPP). A rule with ``"same_block": true`` fires only when
its conditions meet in one Python block (or in the answer read whole as one file): two versions
of a kernel in two blocks are two programs. The check only vetoes: it fails (fatally) on a
fired rule and is not applicable otherwise, so it never lifts a weak answer.
"""

from __future__ import annotations

import ast
import re
from typing import Any, Iterator

from skill_tools.config.pysource import parse
from skill_tools.evaluation.answer_context import AnswerContext, CheckResult
from skill_tools.evaluation.stream_context import callee as _callee, under_stream
from skill_tools.evaluation.programs import diff_programs, literal_programs
from skill_tools.evaluation.decorated import autotune_bindings
from skill_tools.evaluation.fragments import SUGGESTED, WORDS
from skill_tools.evaluation.polarity import ALTERNATIVE

_PROSE_ORIGINS = ("inline", "prose", "table", "comment", WORDS)

_MISSING = object()


def settings(ctx: AnswerContext, in_files: bool = False) -> dict[str, Any]:
    """Every recommended setting of the answer as ``dotted path -> value`` (see the module doc); with
    ``in_files`` only those of whole code blocks, where a key's section is the one written (a span
    such as "`offload_optimizer: cpu`" in a sentence names a key without placing it)."""
    out: dict[str, Any] = {}
    if not in_files:
        out.update(ctx.config.values)
        out.update({f"env.{k}": v for k, v in ctx.config.env.items()})
    for b in ctx.extraction.blocks:
        if in_files and b.role == SUGGESTED and b.cfg is not None and b.origin not in _PROSE_ORIGINS:
            out.update(b.cfg.values)
        if b.kind == "python" and b.role in (SUGGESTED, ALTERNATIVE):  # an offered program is one a user would run
            try:
                tree = parse(b.text)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue  # not Python as a whole (an excerpt with "..."): nothing read from it
            out.update(python_settings(tree, b.text))
    if not in_files and "\n" in ctx.text.strip():  # an answer that is one Python file, read whole (its
        try:                                         # paragraphs split a function body into pieces)
            out.update(python_settings(parse(ctx.text), ctx.text))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            pass
    if not in_files:
        for text in [*diff_programs(ctx.text), *literal_programs(ctx.text)]:
            out.update(python_settings(parse(text), text))
        for m in _SPAN.finditer(ctx.text):  # `k[grid](x, BLOCK_SIZE=n)` in a sentence that recommends it
            try:
                tree = parse(m.group(1))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue
            if ctx.polarity(m.start(1), len(m.group(1))).role == SUGGESTED:
                out.update(python_settings(tree, m.group(1)))
        for code in indented_code_lines(ctx.text):  # "2. Turn it off:\n     model = torch.compile(model, dynamic=False)"
            out.update(python_settings(parse(code), code))
    return out


_INDENTED_CALL = re.compile(r"^[ \t]{3,}((?:[A-Za-z_][\w.]*\s*=\s*)?[A-Za-z_][\w.]*\(.*\))[ \t]*(?:#.*)?$")
_REJECTS = re.compile(r"\b(?:don'?t|do not|never|avoid|wrong|bad|instead of|not)\b", re.I)


def indented_code_lines(text: str) -> list[str]:
    """One-line Python calls indented under a plain-text list item, the line before them not
    rejecting them: code a user would paste, in an answer without fences."""
    if "```" in text:
        return []
    out: list[str] = []
    before = ""  # the last non-empty line above
    for line in text.split("\n"):
        m = _INDENTED_CALL.match(line)
        if m and not _REJECTS.search(before):
            try:
                parse(m.group(1))
                out.append(m.group(1))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                pass
        before = line if line.strip() else before
    return out


_SPAN = re.compile(r"(?<!`)`([^`\n]{3,300})`(?!`)")



def python_settings(tree: ast.AST, source: str) -> dict[str, Any]:
    out: dict[str, Any] = autotune_bindings(tree)
    returns = _one_line_functions(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _callee(node.func)
            if name is None:
                continue
            out[f"py:{name}()"] = True
            for i, arg in enumerate(node.args):
                _put(out, f"py:{name}.#{i}", arg, source)
            for kw in node.keywords:
                if kw.arg is not None:  # BLOCK_SIZE=_block_size(n) is what _block_size returns
                    _put(out, f"py:{name}.{kw.arg}", returns.get(_called(kw.value), kw.value), source)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.decorator_list:
            # its decorators, outermost first: "triton.jit triton.autotune" (the order they wrap it in)
            out[f"py:@{node.name}"] = " ".join(_dotted(d.func if isinstance(d, ast.Call) else d) or "?"
                                               for d in node.decorator_list)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Dict):  # a bare JSON/dict document
            _put(out, "py:{}", node.value, source)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                dotted = _dotted(t)
                if dotted:
                    _put(out, f"py:={dotted}", node.value, source)
    out.update({f"py:{name}()@stream": True for name in under_stream(tree)})
    return out


def _one_line_functions(tree: ast.AST) -> dict[str, ast.AST]:
    """Functions of the block whose body is one ``return <expr>`` (after a docstring): name -> expr."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            body = [n for n in node.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
            if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
                out[node.name] = body[0].value
    return out


def _called(node: ast.AST) -> str | None:
    return node.func.id if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) else None


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        base = _dotted(node.value)  # cfg["zero_optimization"]["stage"] = 3
        return f"{base}.{node.slice.value}" if base else None
    return None


def _put(out: dict[str, Any], path: str, node: ast.AST, source: str) -> None:
    if isinstance(node, ast.Dict):
        for k, v in zip(node.keys, node.values):
            if isinstance(k, ast.Constant) and isinstance(k.value, str):
                _put(out, f"{path}.{k.value}", v, source)
        return
    if isinstance(node, ast.Call) and _callee(node.func) == "dict" and not node.args:
        for kw in node.keywords:
            if kw.arg is not None:
                _put(out, f"{path}.{kw.arg}", kw.value, source)
        return
    try:
        out[path] = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        out[path] = ast.get_source_segment(source, node) or ast.dump(node)[:80]


def _holds(cond: dict[str, Any], found: dict[str, Any], text: str, ctx: AnswerContext | None = None) -> tuple[bool, str]:
    """Whether ``cond`` holds, and the setting that made it hold (for the evidence)."""
    if "text_lacks" in cond:
        return re.search(cond["text_lacks"], text, re.I) is None, ""
    if "order" in cond:
        return _in_order(cond["order"], ctx) if ctx is not None else (False, "")
    if "splits" in cond:
        return _uneven(cond["splits"], found)
    if cond.get("in_files") and ctx is not None:
        found = settings(ctx, in_files=True)
    pattern = re.compile(cond["path"])
    skip = re.compile(cond["not_path"]) if cond.get("not_path") else None
    hits = [p for p in found if pattern.search(p) and not (skip and skip.search(p))]
    if cond.get("absent"):
        return not hits, ""
    for p in hits:
        if _value_test(found[p], cond):
            return True, f"{p}={found[p]!r}"
    return False, ""


def _value_test(value: Any, cond: dict[str, Any]) -> bool:
    from skill_tools.evaluation.config_checks import _number, _same

    if "equals" in cond:
        return _same(value, cond["equals"])
    if "in" in cond:
        return any(_same(value, v) for v in cond["in"])
    if "not_in" in cond:
        if _number(value) is None and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in cond["not_in"]):
            return False  # a name or an expression (``= pp``): its value is not known here, so not outside the list
        return not any(_same(value, v) for v in cond["not_in"])
    if "matches" in cond:  # a string value with that pattern ("triton.jit triton.autotune": jit outermost)
        return isinstance(value, str) and re.search(cond["matches"], value) is not None
    if "lacks" in cond:  # a string value without a part ("PYTORCH_CUDA_ALLOC_CONF" without expandable segments)
        return isinstance(value, str) and cond["lacks"].lower() not in value.lower().replace(" ", "")
    num = _number(value)
    if "above" in cond:
        return num is not None and num > cond["above"]
    if "power_of_two" in cond:
        if num is not None:
            return (num > 0 and int(num) == num and int(num) & (int(num) - 1) == 0) == cond["power_of_two"]
        return not cond["power_of_two"] and isinstance(value, str) and re.fullmatch(
            cond.get("expression", r"[A-Za-z_][\w.]*(\[[^\]]*\])?"), value) is not None
    return True


def fired(rules: list[dict[str, Any]], found: dict[str, Any], text: str,
          ctx: AnswerContext | None = None) -> Iterator[tuple[dict[str, Any], str]]:
    """Each rule that fires on ``found``, with the settings that made it fire."""
    for rule in rules:
        evidence = []
        for cond in rule.get("when", []):
            ok, why = _holds(cond, found, text, ctx)
            if not ok:
                break
            if why:
                evidence.append(why)
        else:
            if not any(_holds(c, found, text, ctx)[0] for c in rule.get("unless", [])):
                yield rule, "; ".join(evidence)


def _programs(ctx: AnswerContext) -> list[str]:
    """The Python programs the answer recommends: each suggested Python block, each program a
    reStructuredText literal block or a fenced diff asks for, and the answer read whole."""
    return [b.text for b in ctx.extraction.blocks if b.kind == "python" and b.role == SUGGESTED] + \
        list(literal_programs(ctx.text)) + list(diff_programs(ctx.text)) + [ctx.text]



def _per_block(ctx: AnswerContext) -> list[dict[str, Any]]:
    """The settings of each recommended Python block alone (and of the answer read whole as one
    Python file): what one program does, for rules whose conditions must meet in one program."""
    out = []
    for text in _programs(ctx):
        try:
            out.append(python_settings(parse(text), text))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return out


def _call_sequences(text: str) -> list[list[str]]:
    """The calls each body of a Python program makes, in order, each as ``dotted.callee(its arguments)``:
    the module's own statements and each function's body, a call to a function the program defines
    followed by that function's own calls (two levels deep), so a teardown that destroys the process
    group and then calls its ``_drop_graphs()`` helper reads in the order it runs."""
    try:
        tree = parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
    funcs = {n.name: n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}

    def own_calls(nodes: list[ast.AST]) -> list[ast.Call]:
        found, todo = [], list(nodes)
        while todo:
            node = todo.pop()
            if isinstance(node, ast.Call):
                found.append(node)
            todo.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, defs))
        return sorted(found, key=lambda n: (n.lineno, n.col_offset))

    def sequence(nodes: list[ast.AST], depth: int) -> list[str]:
        out = []
        for node in own_calls(nodes):
            name = _dotted(node.func) or _callee(node.func)
            if not name:
                continue
            args = [ast.get_source_segment(text, a) or "" for a in node.args + [k.value for k in node.keywords]]
            out.append(f"{name}({', '.join(args)})")
            if depth < 2 and isinstance(node.func, ast.Name) and node.func.id in funcs:
                out.extend(sequence(funcs[node.func.id].body, depth + 1))
        return out

    top = [n for n in tree.body if not isinstance(n, defs)]
    return [sequence(top, 0)] + [sequence(f.body, 0) for f in funcs.values()]


def _uneven(spec: dict[str, Any], found: dict[str, Any]) -> tuple[bool, str]:
    """Whether the numbers the answer sets at ``spec["by"]`` (path regexes) multiply to a size that
    does not divide ``spec["total"]``: 80 layers over PP=4 x VPP=3 leave 20 layers per stage in 3
    chunks. Every factor must be set to a number, or the condition does not hold."""
    from skill_tools.evaluation.config_checks import _number

    product, shown = 1, []
    for pattern in spec["by"]:
        regex = re.compile(pattern)
        value = next((_number(v) for p, v in found.items() if regex.search(p) and _number(v) is not None), None)
        if value is None or value <= 0 or value != int(value):
            return False, ""
        product *= int(value)
        shown.append(f"{pattern.strip('$()^|.')}={int(value)}")
    return spec["total"] % product != 0, f"{' x '.join(shown)} does not divide {spec['total']}"


def _in_order(order: list[str], ctx: AnswerContext) -> tuple[bool, str]:
    """Whether one recommended Python program (a block, or the answer read whole) makes a call
    matching ``order[0]`` and after it one matching ``order[1]``: teardown that destroys the process
    group before it frees the graphs holding its communicators."""
    first, then = re.compile(order[0]), re.compile(order[1])
    for calls in (seq for text in _programs(ctx) for seq in _call_sequences(text)):
        at = next((i for i, c in enumerate(calls) if first.search(c)), None)
        later = next((c for c in calls[at + 1:] if then.search(c)), None) if at is not None else None
        if later is not None:
            return True, f"{calls[at][:80]} before {later[:80]}"
    return False, ""


def _whole_configs(ctx: AnswerContext) -> list[dict[str, Any]]:
    """Each recommended config written as a whole document (a fenced or unfenced block, not a span
    in a sentence), on its own: a decision matrix's "Option A" JSON beside its "Option B" JSON is two
    configs a user might run, and a rule one of them breaks is not hidden by the other's values. A
    sentence that sets two settings or more (a layout offered in a footnote) is such a plan too."""
    out, lines = [], {}
    for b in ctx.extraction.blocks:
        if b.role == SUGGESTED and b.cfg is not None and b.origin not in _PROSE_ORIGINS and len(b.cfg.values) >= 2:
            out.append({**b.cfg.values, **{f"env.{k}": v for k, v in b.cfg.env.items()}})
        elif b.role in (SUGGESTED, ALTERNATIVE) and b.cfg is not None and b.origin == "prose":
            lines.setdefault(b.line, {}).update(b.cfg.values)  # "a layout that works well is TP=16 × PP=2 × CP=1"
    out += [v for v in lines.values() if len(v) >= 2]  # a sentence that lays out a plan is one too
    return out if len(out) > 1 else []


def check_domain(ctx: AnswerContext, spec: dict[str, Any]) -> CheckResult:
    name = spec.get("name") or "domain rules"
    rules = spec.get("rules", [])
    found = settings(ctx)
    hits = list(fired([r for r in rules if not r.get("same_block")], found, ctx.text, ctx))
    one = [r for r in rules if r.get("same_block")]  # "autotuned and also passed at launch": one kernel's program,
    for block in _per_block(ctx) if one else []:       # not version A's launch beside version B's configs
        hits += [h for h in fired(one, block, ctx.text, ctx) if h[0] not in [x[0] for x in hits]]
    whole = [r for r in rules if not r.get("same_block") and not any(c.get("absent") for c in r.get("when", []))]
    for values in _whole_configs(ctx) if whole else []:  # two whole configs side by side are two plans, not one merged
        hits += [h for h in fired(whole, values, ctx.text, ctx) if h[0] not in [x[0] for x in hits]]
    if not hits:
        return CheckResult("domain", name, None, f"not applicable: none of {len(spec.get('rules', []))} rules fires")
    rule, evidence = hits[0]
    more = f" (and {len(hits) - 1} more rule(s))" if len(hits) > 1 else ""
    return CheckResult("domain", name, 0.0, f"[{rule['id']}] {rule['message']}{more}; source: {rule.get('source', '')}",
                       evidence[:300], fatal=True)
