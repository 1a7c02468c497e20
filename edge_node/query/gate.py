"""The gate: trust the local answers or escalate the question to the cloud.

(a) Refusal detection (the paper's "confidence detection"): do the sampled answers declare missing information
(refusal/uncertainty phrasing)? (b) Similarity evaluation: mean pairwise cosine of answer embeddings, Jaccard of
their token sets, and agreement of their core claims (yes/no polarity and the names/numbers they assert). (c) A
model-free evidence signal: how strongly the question matched local knowledge. The weighted score and the
refusal share are the gate's output; whether they let the answer stand is edge_node.query.escalation's rule,
recorded here with every signal and weight for the trace.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence

import numpy as np

from edge_node.query.escalation import Signals, distrust
from shared.config import GateConfig
from shared.core.model_api import FloatMatrix
from shared.core.trace import GateTrace
from shared.reading.answer_format import declares_missing as declares_missing  # the gate's refusal detection

GateResult = GateTrace
"""The gate's outcome is the record the trace carries (:class:`shared.core.trace.GateTrace`)."""

_TOKEN = re.compile(r"[a-z0-9]+")
_KEY = re.compile(r"\b(?:[A-Z][\w'-]+|\d[\d,.%]*)\b")
_POLARITY = {"yes": "yes", "no": "no", "true": "yes", "false": "no", "correct": "yes", "incorrect": "no"}


def first_word(answer: str) -> str:
    """The answer's first word, lower-cased, without surrounding punctuation."""
    words = _TOKEN.findall(answer.strip().casefold()[:40])
    return words[0] if words else ""


def _claim(answer: str) -> tuple[str, frozenset[str]]:
    first = re.split(r"(?<=[.!?])\s", answer.strip(), maxsplit=1)[0]
    polarity = _POLARITY.get(first_word(answer), "")
    keys = frozenset(k.casefold() for k in _KEY.findall(first) if k.casefold() not in _POLARITY)
    return polarity, keys


def _jaccard(a: set[str] | frozenset[str], b: set[str] | frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def claim_consistency(answers: list[str]) -> float:
    """Share of answer pairs whose core claims agree (same yes/no polarity; overlapping names/numbers)."""
    claims = [_claim(a) for a in answers]
    pairs = list(itertools.combinations(claims, 2))
    if not pairs:
        return 1.0
    agree = 0
    for (pa, ka), (pb, kb) in pairs:
        if (pa or pb) and pa != pb:
            continue
        if ka and kb and _jaccard(ka, kb) < 0.3:
            continue
        agree += 1
    return agree / len(pairs)


def combined_score(values: Mapping[str, float | None], weights: Mapping[str, float]) -> float:
    """The gate's score: the weighted mean of the signals it has (a signal that is None, e.g. agreement with
    one answer only, is left out together with its weight); 0.0 when no weight remains."""
    used = {k: w for k, w in weights.items() if values.get(k) is not None}
    total = sum(used.values()) or 1.0
    return sum(w * float(values[k] or 0.0) for k, w in used.items()) / total


def evaluate(
    answers: list[str],
    vectors: FloatMatrix,
    evidence: float,
    config: GateConfig,
    degenerate: Sequence[bool] = (),
    unsupported: Sequence[bool] = (),
) -> GateResult:
    """Score ``answers`` (with their L2-normalised embeddings ``vectors``) and say why they may not stand alone;
    ``degenerate[i]`` marks an answer that must not be shown and ``unsupported[i]`` one whose claim the evidence
    does not hold (shared.reading.compose.unsupported): both count as refusals (an unsupported one by
    ``config.unsupported_weight``), even with refusal detection switched off (a loop is not an answer, nor an
    invented claim), and are never chosen as the best."""
    n = len(answers)
    loops = list(degenerate) or [False] * n
    invented = list(unsupported) or [False] * n
    bad = [a or b for a, b in zip(loops, invented, strict=True)]
    declines = [declares_missing(a) for a in answers] if config.refusal_detection else [False] * n
    refusals = sum(d or b for d, b in zip(declines, bad, strict=True))
    refusal_share = _refused(declines, loops, invented, config.unsupported_weight) / n if n else 1.0
    cosine = jaccard = claims = None
    weights = {"evidence": config.weight_evidence}
    values = {"evidence": evidence}
    if config.similarity_evaluation and n >= 2:
        sims = vectors @ vectors.T
        iu = np.triu_indices(n, k=1)
        cosine = float(np.clip(sims[iu].mean(), 0.0, 1.0))
        tokens = [set(_TOKEN.findall(a.casefold())) for a in answers]
        jaccard = float(np.mean([_jaccard(a, b) for a, b in itertools.combinations(tokens, 2)]))
        claims = claim_consistency(answers)
        weights.update(cosine=config.weight_cosine, jaccard=config.weight_jaccard, claims=config.weight_claims)
        values.update(cosine=cosine, jaccard=jaccard, claims=claims)
    total_weight = sum(weights.values()) or 1.0
    score = combined_score(values, weights)
    # the gate scores; what the local path does with the scores is escalation's one rule
    reasons = distrust(Signals(score, refusal_share), config)
    return GateResult(
        score=score,
        threshold=config.threshold,
        best_index=best_answer(answers, vectors, config.refusal_detection, bad),
        refusals=refusals,
        refusal_share=refusal_share,
        cosine=cosine,
        jaccard=jaccard,
        claims=claims,
        evidence=evidence,
        weights={k: w / total_weight for k, w in weights.items()},
        reasons=tuple(reasons),
        degenerate=sum(loops),
        unsupported=sum(invented),
    )


def _refused(declines: Sequence[bool], loops: Sequence[bool], invented: Sequence[bool], weight: float) -> float:
    """Refusals counted: a decline or a degenerate answer as one, an answer only unsupported as ``weight``."""
    flags = zip(declines, loops, invented, strict=True)
    return sum(1.0 if d or loop else (weight if u else 0.0) for d, loop, u in flags)


def best_answer(
    answers: list[str], vectors: FloatMatrix, skip_refusals: bool = True, degenerate: Sequence[bool] = ()
) -> int:
    """Index of the medoid answer (highest mean cosine to the others), never a degenerate one when another
    exists, and preferring non-refusals."""
    if len(answers) <= 1:
        return 0
    bad = list(degenerate) or [False] * len(answers)
    sims = vectors @ vectors.T
    order = [int(i) for i in np.argsort(-(sims.sum(axis=1) - 1.0), kind="stable")]
    usable = [i for i in order if not bad[i]] or order
    if skip_refusals:
        for i in usable:
            if not declares_missing(answers[i]):
                return i
    return usable[0]
