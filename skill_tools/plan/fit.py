"""Fit the user's model to the GPUs at hand, by rules a user can read.

Order: (1) refuse what the engine cannot build; (2) fold the parallel layout onto the GPUs there
are (DP, PP and CP first, then TP, then EP), keeping each GPU's work of one layer where a fold
allows it; (3) fewer layers, the same per-layer shape, keeping the MoE layer frequency's or the
hybrid pattern's period, up to ``max_layers`` and within the GPU's memory. Every change is a
:class:`Change` with what it means for the result; a shape that cannot fit even at one period of
layers is refused with what would work.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

from skill_tools.config.shape import Layout, ModelShape
from skill_tools.plan.memory import Estimate, estimate

#: Activations the engines' Megatron-LM flags can express (``--swiglu``, ``--squared-relu``, default gelu).
BUILDABLE_ACTIVATIONS = ("gelu", "swiglu", "squared_relu")


@dataclass(frozen=True)
class Change:
    """One value the plan changed: ``adapted: num_layers 48 -> 4 (...)``."""

    field: str
    before: object
    after: object
    rule: str
    meaning: str

    def line(self) -> str:
        return f"adapted: {self.field} {self.before} -> {self.after} ({self.rule}); {self.meaning}"

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Refusal:
    """Why the config cannot be measured here: the field, its value and what would work."""

    field: str
    value: object
    reason: str
    would_work: str

    def line(self) -> str:
        return f"refused: {self.field}={self.value!r}: {self.reason} (what would work: {self.would_work})"

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Fit:
    shape: ModelShape
    layout: Layout
    changes: tuple[Change, ...]
    refusals: tuple[Refusal, ...]
    estimate: Estimate | None
    moe_pattern: tuple[bool, ...]


def architecture_refusals(s: ModelShape) -> list[Refusal]:
    """What the Megatron-LM/Bridge engines' GPTModel cannot build from this shape."""
    out = []
    if s.hybrid_layer_pattern:
        kinds = sorted(set(s.hybrid_layer_pattern) - {"|"})
        out.append(Refusal(
            "hybrid_layer_pattern", s.hybrid_layer_pattern,
            f"a hybrid model (layer kinds {''.join(kinds)}: M Mamba, * attention, - MLP, E MoE) is built by "
            "megatron-core's HybridModel; the engines build GPTModel (attention + MLP/MoE in every layer)"
            + (", and Mamba layers need the mamba-ssm and causal-conv1d kernels" if "M" in kinds else ""),
            "bench --plan-cluster prints this model's A/B as your own jobs; locally, a GPT/MoE config"))
    if s.multi_latent_attention:
        out.append(Refusal("multi_latent_attention", True, "the engines build GQA/MHA self-attention layers",
                           "bench --plan-cluster (your own jobs), or a GQA config of the same hidden size"))
    if s.activation not in BUILDABLE_ACTIVATIONS:
        out.append(Refusal("activation", s.activation, "Megatron-LM's flags build gelu, swiglu or squared_relu MLPs",
                           "swiglu (--swiglu) for a gated SiLU MLP, or bench --plan-cluster"))
    if s.num_attention_heads % s.num_query_groups:
        out.append(Refusal("num_query_groups", s.num_query_groups,
                           f"must divide num_attention_heads={s.num_attention_heads}",
                           "a divisor of the head count"))
    if s.is_moe and s.moe_router_topk > (s.num_experts or 0):
        out.append(Refusal("moe_router_topk", s.moe_router_topk, f"more than num_experts={s.num_experts}",
                           f"at most {s.num_experts}"))
    return out


def _divisor(n: int, at_most: int, of: int | None = None) -> int:
    """Largest d <= at_most dividing n (and ``of`` where given)."""
    for d in range(max(1, min(n, at_most)), 0, -1):
        if n % d == 0 and (of is None or of % d == 0):
            return d
    return 1


def fold_layout(s: ModelShape, user: Layout, gpus: int) -> tuple[Layout, ModelShape, list[Change]]:
    """The layout on ``gpus`` GPUs, and the shape changes a fold implies (sequence parallel, dispatcher)."""
    changes: list[Change] = []
    tp = _divisor(gpus, user.tp, user.tp)
    cp = _divisor(gpus // tp, user.cp, user.cp)
    dp = gpus // (tp * cp)
    etp = _divisor(gpus, min(user.etp, tp), user.etp)
    ep = _divisor(gpus // etp, user.ep, s.num_experts or 1) if s.is_moe else 1
    if user.dp is not None and user.dp != dp:
        changes.append(Change("dp", user.dp, dp, f"{gpus} GPU(s) here",
                              "no gradient all-reduce/reduce-scatter across data-parallel ranks: the step measures "
                              "compute and launches, not data-parallel communication"))
    if user.pp != 1:
        changes.append(Change("pp", user.pp, 1, "one stage holds the measured layers",
                              "no pipeline bubbles or P2P sends; per-layer graph effects carry over, "
                              "pipeline schedule overheads are not measured"))
    if user.vpp:
        changes.append(Change("vpp", user.vpp, None, "no pipeline", "virtual stages need PP > 1"))
    if user.cp != cp:
        changes.append(Change("cp", user.cp, cp, f"{gpus} GPU(s) here",
                              f"each GPU attends over the full {s.seq_length} tokens ({user.cp // cp}x its tokens "
                              "per layer at the config's CP); no CP ring exchange"))
    if user.tp != tp:
        changes.append(Change("tp", user.tp, tp, f"{gpus} GPU(s) here",
                              f"each GPU runs {user.tp // tp}x the GEMM work of one layer and no TP collectives; "
                              "larger kernels are less launch-bound, so graph gains here understate those at "
                              f"TP {user.tp}"))
    if s.is_moe and user.ep != ep:
        changes.append(Change("ep", user.ep, ep, f"{gpus} GPU(s) here",
                              f"all {s.num_experts} experts on {'one GPU' if ep == 1 else f'{ep} GPUs'}: each GPU's "
                              "routed tokens per step stay the same (seq x micro-batch x top-k), grouped GEMMs span "
                              f"{(s.num_experts or 0) // ep} experts instead of {(s.num_experts or 0) // user.ep}, "
                              f"expert weights are {user.ep // ep}x per GPU, no token all-to-all"))
    if user.etp != etp:
        changes.append(Change("etp", user.etp, etp, "follows TP", "expert GEMMs unsplit"))
    new_shape = s
    if user.sequence_parallel and tp == 1:
        changes.append(Change("sequence_parallel", True, False, "TP 1", "sequence parallelism needs TP > 1"))
    if s.is_moe and s.moe_token_dispatcher_type == "flex":
        new_shape = replace(new_shape, moe_token_dispatcher_type="alltoall")
        changes.append(Change("moe_token_dispatcher_type", "flex", "alltoall", "no DeepEP/HybridEP here",
                              "the dropless alltoall dispatcher has the same host syncs the graph scopes avoid"))
    layout = Layout(tp=tp, pp=1, vpp=None, ep=ep, etp=etp, cp=cp, dp=dp, nproc=gpus,
                    sequence_parallel=user.sequence_parallel and tp > 1,
                    origin={"*": f"folded onto {gpus} GPU(s)"})
    return layout, new_shape, changes


def layer_pattern(s: ModelShape) -> tuple[list[bool], int, str]:
    """(MoE flag per layer, the period a shorter model keeps, how it was chosen)."""
    pattern = s.moe_layers()
    freq = s.moe_layer_freq
    if not s.is_moe or freq == 1 or freq == [1] * len(pattern):
        return pattern, 1, "every layer alike"
    if isinstance(freq, int):
        return pattern, int(freq), f"moe_layer_freq {freq}: one MoE layer every {freq}"
    lead = next((i for i, x in enumerate(pattern) if x), len(pattern))
    return pattern, 1, f"moe_layer_freq list: {lead} leading dense layer(s), then MoE"


def shorter_pattern(pattern: list[bool], n: int) -> list[bool]:
    """The first ``n`` layers, keeping one leading dense layer when the model has any, so both
    kinds of layer are measured."""
    lead = next((i for i, x in enumerate(pattern) if x), len(pattern))
    if 0 < lead < len(pattern) and n > 1:
        return [False] + [True] * (n - 1)
    return pattern[:n]


def fit(s: ModelShape, user: Layout, *, gpus: int, capacity_gb: float, max_layers: int,
        distributed_optimizer: bool = False) -> Fit:
    refusals = architecture_refusals(s)
    layout, shape, changes = fold_layout(s, user, gpus)
    if s.is_moe and (s.num_experts or 0) % layout.ep:
        refusals.append(Refusal("num_experts", s.num_experts, f"not divisible by EP {layout.ep}",
                                "a GPU count whose EP divides the expert count"))
    pattern, period, why = layer_pattern(shape)
    if s.hybrid_layer_pattern:
        return Fit(shape, layout, tuple(changes), tuple(refusals), None, tuple(pattern))
    want = max(period, min(s.num_layers, max_layers) // period * period)
    chosen: Estimate | None = None
    n = want
    while n >= period:
        pat = shorter_pattern(pattern, n)
        est = estimate(shape, layout, capacity_gb, moe_pattern=pat, distributed_optimizer=distributed_optimizer)
        if est.fits:
            chosen = est
            break
        n -= period
    if chosen is None:
        pat = shorter_pattern(pattern, period)
        one = estimate(shape, layout, capacity_gb, moe_pattern=pat, distributed_optimizer=distributed_optimizer)
        refusals.append(Refusal("num_layers", s.num_layers,
                                f"even {period} layer(s) of this shape need {one.total_gb:.0f} GB on {gpus} GPU(s), "
                                f"over the {one.budget_gb:.0f} GB budget of a {capacity_gb:.0f} GB GPU",
                                _what_fits(shape, layout, capacity_gb, pat, gpus)))
        return Fit(shape, layout, tuple(changes), tuple(refusals), one, tuple(pat))
    if n != s.num_layers:
        reason = f"fits {capacity_gb:.0f} GB: {chosen.total_gb:.0f} GB estimated"
        if n == want and want < s.num_layers:
            reason += f"; at most {max_layers} layers per run (--layers), {why}"
        changes.insert(0, Change("num_layers", s.num_layers, n, reason,
                                 "the same per-layer shape: per-layer graph effects (capture, replay, launch savings) "
                                 "carry over; whole-model step time and memory are projected, not measured"))
        shape = replace(shape, num_layers=n, moe_layer_freq=[int(x) for x in shorter_pattern(pattern, n)]
                        if isinstance(shape.moe_layer_freq, list) else shape.moe_layer_freq)
    return Fit(shape, layout, tuple(changes), tuple(refusals), chosen, tuple(shorter_pattern(pattern, n)))


def _what_fits(s: ModelShape, layout: Layout, capacity_gb: float, pat: list[bool], gpus: int) -> str:
    hints = []
    seq = s.seq_length
    while seq > 256:
        seq //= 2
        if estimate(replace(s, seq_length=seq), layout, capacity_gb, moe_pattern=pat).fits:
            hints.append(f"seq_length {seq}")
            break
    for n in (2, 4, 8):
        if n <= gpus:
            continue
        wide = replace(layout, ep=_divisor(n, max(layout.ep, n), s.num_experts or 1) if s.is_moe else 1,
                       tp=1 if s.is_moe else n, nproc=n, dp=n if s.is_moe else 1)
        if estimate(s, wide, capacity_gb, moe_pattern=pat).fits:
            hints.append(f"{n} GPUs (--nproc {n}: {'EP' if s.is_moe else 'TP'} {n})")
            break
    if s.recompute_granularity != "full":
        full = replace(s, recompute_granularity="full")
        if estimate(full, layout, capacity_gb, moe_pattern=pat).fits:
            hints.append("recompute_granularity full")
    return ", or ".join(hints) or "more GPUs than this plan considers (bench --plan-cluster for your own cluster)"


def projection(s: ModelShape, fitted: Fit, user: Layout, capacity_gb: float, distributed_optimizer: bool) -> dict:
    """Memory of the full layer count: on the GPUs here, and per GPU at the config's own layout."""
    here = estimate(fitted.shape.with_values(num_layers=s.num_layers), fitted.layout, capacity_gb,
                    moe_pattern=s.moe_layers(), distributed_optimizer=distributed_optimizer)
    per_stage = max(1, s.num_layers // max(1, user.pp))
    own = estimate(s, replace(user, dp=user.dp or 1), capacity_gb, moe_pattern=s.moe_layers()[:per_stage],
                   distributed_optimizer=distributed_optimizer)
    return {"all_layers_here": here.to_dict(),
            "per_gpu_at_config_layout": own.to_dict() | {"layers_per_stage": per_stage,
                                                          "dp_assumed": user.dp or 1}}
