"""Which edges a cross-edge question goes to (transport-free).

Stage 1 ranks edges by their summaries (the paper's routing: the edges of the best-matching summaries, in order).
Stage 2, when ``query.probe_shortlist`` is set, probes the first few of them for retrieval scores (numbers only,
no text leaves an edge) and asks the edges the probes favour, with an adaptive k: every edge whose routing score
is within ``probe_margin`` of the best, up to ``probe_max_k``. An edge's routing score mixes its probe score with
its summary score (``probe_weight``). Probes matter where summaries cannot tell edges apart: edges that share
people, places and topics (several devices of one person, branches of one organisation).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from shared.config import CloudQueryConfig
from shared.core.errors import ConfigError
from shared.core.knowledge import ProbeScores, SummaryMatch


def choose_edges(matches: Sequence[SummaryMatch], k: int) -> list[str]:
    """The first ``k`` distinct edges among the matched summaries, best first."""
    edges: list[str] = []
    for match in matches:
        if match.edge_id not in edges:
            edges.append(match.edge_id)
        if len(edges) == k:
            break
    return edges


def edge_summary_scores(matches: Sequence[SummaryMatch]) -> dict[str, float]:
    """Each edge's best summary score among ``matches``."""
    best: dict[str, float] = {}
    for match in matches:
        best[match.edge_id] = max(best.get(match.edge_id, -1.0), match.score)
    return best


def edge_summary_texts(matches: Sequence[SummaryMatch], texts: Mapping[str, str]) -> dict[str, list[str]]:
    """Each edge's texts (``texts``: by summary id) of its summaries among ``matches``."""
    out: dict[str, list[str]] = {}
    for match in matches:
        if match.summary_id in texts:
            out.setdefault(match.edge_id, []).append(texts[match.summary_id])
    return out


@dataclass(frozen=True)
class ProbeRouting:
    """The stage-2 settings (see CloudQueryConfig)."""

    shortlist: int
    margin: float
    max_k: int
    weight: float
    terms_weight: float = 0.0
    lexical_weight: float = 0.0
    signal_weights: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def from_config(cls, cfg: CloudQueryConfig) -> ProbeRouting:
        if cfg.probe_shortlist < 0:
            raise ConfigError(f"query.probe_shortlist = {cfg.probe_shortlist}: use 0 (no probes) or a count of edges")
        if cfg.probe_max_k < 1:
            raise ConfigError(f"query.probe_max_k = {cfg.probe_max_k}: at least one edge is asked")
        if not 0.0 <= cfg.probe_weight <= 1.0:
            raise ConfigError(f"query.probe_weight = {cfg.probe_weight}: give a weight in [0, 1]")
        if cfg.probe_margin < 0 or cfg.probe_deadline_s <= 0:
            raise ConfigError("query.probe_margin must be >= 0 and query.probe_deadline_s > 0")
        for name, weight in (
            ("probe_terms_weight", cfg.probe_terms_weight),
            ("probe_lexical_weight", cfg.probe_lexical_weight),
        ):
            if not weight >= 0:
                raise ConfigError(f"query.{name} = {weight}: give a weight >= 0")
        return cls(
            cfg.probe_shortlist,
            cfg.probe_margin,
            cfg.probe_max_k,
            cfg.probe_weight,
            cfg.probe_terms_weight,
            cfg.probe_lexical_weight,
            signal_weights(cfg.probe_signal_weights),
        )

    @property
    def enabled(self) -> bool:
        return self.shortlist > 0

    def probed(self, probe: ProbeScores) -> float:
        """An edge's probe score: evidence + terms_weight × term coverage + lexical_weight × lexical coverage +
        each further signal × its weight."""
        named = probe.score + self.terms_weight * probe.term_coverage + self.lexical_weight * probe.lexical
        return named + sum(w * probe.signals.get(name, 0.0) for name, w in self.signal_weights.items())

    def score(self, probe: ProbeScores, summary_score: float) -> float:
        return self.weight * self.probed(probe) + (1.0 - self.weight) * summary_score

    def choose(
        self,
        probes: Sequence[ProbeScores],
        matches: Sequence[SummaryMatch],
        max_k: int,
    ) -> list[str]:
        """The edges to ask, best first: the best routing score and every other within the margin, at most
        ``max_k``. With no probe answered, the stage-1 order decides (``max_k`` edges). An edge that refuses
        probes by policy is asked when it is first by summaries."""
        stage1 = choose_edges(matches, len(matches))
        answered = [p for p in probes if not p.error]
        if not answered:
            return [p.edge_id for p in probes][:max_k] or stage1[:max_k]
        summary = edge_summary_scores(matches)
        order = {edge: i for i, edge in enumerate(stage1)}

        def routing_score(p: ProbeScores) -> float:
            return self.score(p, summary.get(p.edge_id, 0.0))

        ranked = sorted(answered, key=lambda p: (-routing_score(p), order.get(p.edge_id, len(order))))
        best = routing_score(ranked[0])
        close = [p.edge_id for p in ranked if routing_score(p) >= best - self.margin]
        # an edge whose owner turned probes off is routed by its summaries alone: asked when it ranks first there
        first = next((p for p in probes if p.edge_id == stage1[0]), None) if stage1 else None
        if first is not None and first.refused:
            close = [first.edge_id, *close]
        return close[:max_k]


def probes_unanswered(probes: Sequence[ProbeScores], unnamed: Collection[str]) -> bool:
    """Whether an edge (not one that asked to stay unnamed) failed its probe other than by refusing probes: its
    session is open but it was cut off, hung or too late, and it may know more than the edges that answered."""
    return any(p.failed and p.edge_id not in unnamed for p in probes)


def signal_weights(setting: str) -> dict[str, float]:
    """``query.probe_signal_weights`` (``name=weight,...``) as a mapping; raises ConfigError naming a bad pair."""
    weights: dict[str, float] = {}
    for pair in (p.strip() for p in setting.split(",") if p.strip()):
        name, _, value = pair.partition("=")
        try:
            weight = float(value)
        except ValueError:
            weight = -1.0
        if not name.strip() or not weight >= 0:
            raise ConfigError(f"query.probe_signal_weights: {pair!r} is not name=weight with a weight >= 0")
        weights[name.strip()] = weight
    return weights
