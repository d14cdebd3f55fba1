"""Doc-tests: every config snippet in SKILL.md and references/ is valid for the era it targets.

Convention: each fenced block carries an info string after the language, either ``era=0.19``
(megatron-core 0.18+, checked as 0.19.2), ``era=0.16`` (0.16–0.17, checked as 0.16.1),
``era=both``, or ``noconfig`` (commands, log lines, output). A snippet is read with the evals
extractor (never executed), then must (1) spell its keys for its era, (2) pass the rule engine
with no error, and (3) be accepted by the installed megatron-core's ``TransformerConfig`` when the
installed version belongs to the snippet's era — so the main env checks 0.19 snippets against
0.19.2 and the legacy env checks 0.16 snippets against 0.16.1.
"""

from __future__ import annotations

import dataclasses
import re
import warnings
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest
import yaml

from skill_tools.config.era import era_for, migrations

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "SKILL.md", *sorted((REPO / "references").glob("*.md"))]
ERA_VERSIONS = {"0.19": "0.19.2", "0.16": "0.16.1"}
_FENCE = re.compile(r"^(`{3,}|~{3,})\s*([\w+.-]*)\s*(.*)$")
#: How SKILL.md and references/ cite a validator rule: "rule `id`" or "rules `a`, `b`".
_RULE_CITE = re.compile(r"\b[Rr]ules? ((?:`[a-z0-9-]+`(?:,\s*|\s+and\s+)?)+)")


@dataclass(frozen=True)
class Snippet:
    doc: str
    line: int
    lang: str
    info: str
    body: str

    @property
    def eras(self) -> tuple[str, ...]:
        m = re.search(r"\bera=(\S+)", self.info)
        if not m:
            return ()
        return tuple(ERA_VERSIONS) if m.group(1) == "both" else (m.group(1),)

    @property
    def noconfig(self) -> bool:
        return "noconfig" in self.info.split()

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"


def fenced_blocks(path: Path) -> list[Snippet]:
    out: list[Snippet] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, lang, info = m.group(1), m.group(2), m.group(3)
        j = i + 1
        while j < len(lines) and not lines[j].startswith(fence):
            j += 1
        out.append(Snippet(path.relative_to(REPO).as_posix(), i + 1, lang, info.strip(), "\n".join(lines[i + 1:j])))
        i = j + 1
    return out


ALL_BLOCKS = [s for doc in DOCS for s in fenced_blocks(doc)]
CONFIG_SNIPPETS = [s for s in ALL_BLOCKS if s.eras]
ERA_CASES = [(s, e) for s in CONFIG_SNIPPETS for e in s.eras]


#: Stock-recipe families (tests/bridge_stock.py) whose model is MoE. A snippet tagged
#: ``recipes=`` with only these is pasted into an MoE recipe, so its bare checks below see the
#: MoE context every such recipe has (experts, grouped GEMM) instead of a dense toy model.
_MOE = {"model.num_moe_experts": 128, "model.moe_grouped_gemm": True}
FAMILY_CONTEXT = {"qwen3-30b-a3b": _MOE, "gpt-oss-20b": _MOE,
                  "deepseek-v3": {**_MOE, "model.multi_latent_attention": True}}


def recipe_context(snippet: Snippet) -> dict[str, object]:
    """What every family in the snippet's ``recipes=`` tag shares (empty without the tag);
    ``launches=moe`` (Megatron-LM snippets appended to MoE launches) gets the MoE context."""
    if re.search(r"\blaunches=moe\b", snippet.info):
        return dict(_MOE)
    m = re.search(r"\brecipes=(\S+)", snippet.info)
    if not m or not set(m.group(1).split(",")) <= set(FAMILY_CONTEXT):
        return {}
    shared = [FAMILY_CONTEXT[f].items() for f in m.group(1).split(",")]
    return dict(set.intersection(*map(set, shared)))


def extract(snippet: Snippet):
    from skill_tools.evaluation.extract import extract_config

    ex = extract_config(f"```{snippet.lang}\n{snippet.body}\n```\n", source=snippet.id)
    assert not ex.findings, f"{snippet.id}: extractor findings {[f.to_dict() for f in ex.findings]}"
    assert ex.suggested, f"{snippet.id}: no config found in the snippet"
    return ex


def _kinds(ex) -> set[str]:
    return {b.kind for b in ex.suggested}


@pytest.mark.legacy
def test_docs_have_config_snippets_for_both_eras() -> None:
    eras = {e for s in CONFIG_SNIPPETS for e in s.eras}
    assert eras == set(ERA_VERSIONS), eras
    assert len(CONFIG_SNIPPETS) >= 20


@pytest.mark.legacy
@pytest.mark.parametrize("snippet", ALL_BLOCKS, ids=lambda s: s.id)
def test_every_fenced_block_is_tagged(snippet: Snippet) -> None:
    tags = re.findall(r"\bera=(\S+)", snippet.info)
    assert tags or snippet.noconfig, (
        f"{snippet.id}: fenced block without 'era=0.19|0.16|both' or 'noconfig' in its info string")
    for t in tags:
        assert t in (*ERA_VERSIONS, "both"), f"{snippet.id}: unknown era tag {t!r}"


@pytest.mark.legacy
@pytest.mark.parametrize("snippet", CONFIG_SNIPPETS, ids=lambda s: s.id)
def test_snippet_is_a_cuda_graph_config(snippet: Snippet) -> None:
    ex = extract(snippet)
    assert ex.config.get("model.cuda_graph_impl") not in (None, "none"), (
        f"{snippet.id}: snippet does not enable CUDA graphs: {dict(ex.config)}")


@pytest.mark.legacy
@pytest.mark.parametrize(("snippet", "era"), ERA_CASES, ids=lambda x: x.id if isinstance(x, Snippet) else x)
def test_snippet_spells_keys_for_its_era(snippet: Snippet, era: str) -> None:
    ex = extract(snippet)
    if "run_script" in _kinds(ex):
        pytest.skip("run_script.py flags are the Bridge harness's own spelling; it writes the era keys")
    found = migrations(ex.config, era_for(ERA_VERSIONS[era]))
    assert not found, f"{snippet.id} (era {era}): " + "; ".join(m.message for m in found)


@pytest.mark.legacy
@pytest.mark.parametrize(("snippet", "era"), ERA_CASES, ids=lambda x: x.id if isinstance(x, Snippet) else x)
def test_snippet_passes_the_rule_engine(snippet: Snippet, era: str) -> None:
    engine = pytest.importorskip("skill_tools.rules.engine")
    ex = extract(snippet)
    cfg = ex.config
    for key, value in recipe_context(snippet).items():
        if not cfg.has(key):
            cfg.set(key, value)
    # A Megatron-LM launch is not judged by Bridge's own checks (catalog level "bridge").
    levels = ("advice", "mcore", "megatron_lm", "runtime") if "megatron_lm" in _kinds(ex) else None
    findings = engine.check(cfg, era_for(ERA_VERSIONS[era]), levels=levels)
    errors = [f for f in findings if f.severity == "error"]
    assert not errors, f"{snippet.id} (era {era}): " + "; ".join(f"{f.rule}: {f.message}" for f in errors)


def _installed_era() -> str | None:
    try:
        version = metadata.version("megatron-core")
    except metadata.PackageNotFoundError:
        return None
    return "0.16" if era_for(version).name == "legacy" else "0.19"


@pytest.mark.legacy
@pytest.mark.parametrize("snippet", CONFIG_SNIPPETS, ids=lambda s: s.id)
def test_installed_megatron_core_accepts_snippet(snippet: Snippet) -> None:
    """The real ``TransformerConfig.__post_init__`` of the installed release is the oracle."""
    era = _installed_era()
    if era is None or era not in snippet.eras:
        pytest.skip(f"installed megatron-core era {era} is not a target of this snippet")
    from megatron.core.transformer.transformer_config import TransformerConfig

    ex = extract(snippet)
    fields = {f.name for f in dataclasses.fields(TransformerConfig)}
    kwargs = {"num_layers": 2, "hidden_size": 64, "num_attention_heads": 4}
    if "megatron_lm" in _kinds(ex):
        # Megatron-LM's parser defaults the list flag to [] (arguments.py: --cuda-graph-scope /
        # --cuda-graph-modules default=[]), not to TransformerConfig's deprecated "full".
        kwargs["cuda_graph_modules" if "cuda_graph_modules" in fields else "cuda_graph_scope"] = []
    for key, value in {**recipe_context(snippet), **dict(ex.config)}.items():
        section, _, name = key.partition(".")
        if section == "model" and name in fields:
            kwargs[name] = value
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cfg = TransformerConfig(**kwargs)
    assert cfg.cuda_graph_impl != "none"
    deprecated = [str(w.message) for w in caught if "deprecated" in str(w.message) and "cuda_graph" in str(w.message)]
    if "run_script" not in _kinds(ex):
        assert not deprecated, f"{snippet.id}: megatron-core migrates this spelling: {deprecated}"


def _cited_rule_ids() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for group in _RULE_CITE.findall(text):
            for rid in re.findall(r"`([a-z0-9-]+)`", group):
                out.setdefault(rid, set()).add(doc.relative_to(REPO).as_posix())
    return out


@pytest.mark.legacy
def test_every_cited_rule_id_exists_in_the_catalog() -> None:
    catalog_path = REPO / "skill_tools" / "rules" / "catalog.yaml"
    cited = _cited_rule_ids()
    assert len(cited) >= 10, cited
    if not catalog_path.is_file():
        pytest.skip("skill_tools/rules/catalog.yaml not present in this checkout")
    data = yaml.safe_load(catalog_path.read_text(encoding="utf-8"))
    rules = data.get("rules", data) if isinstance(data, dict) else data
    ids = {r["id"] for r in rules if isinstance(r, dict) and "id" in r}
    missing = {rid: sorted(docs) for rid, docs in cited.items() if rid not in ids}
    assert not missing, f"rule ids cited in the docs but absent from catalog.yaml: {missing}"


@pytest.mark.legacy
def test_troubleshooting_covers_every_log_signature() -> None:
    data = yaml.safe_load((REPO / "skill_tools" / "logs" / "signatures.yaml").read_text(encoding="utf-8"))
    ids = [s["id"] for s in data["signatures"]]
    text = (REPO / "references" / "troubleshooting.md").read_text(encoding="utf-8")
    headings = set(re.findall(r"^### ([a-z0-9-]+)\s*$", text, re.M))
    assert not set(ids) - headings, f"signatures without a troubleshooting section: {sorted(set(ids) - headings)}"
    assert not headings - set(ids), f"sections for unknown signatures: {sorted(headings - set(ids))}"
