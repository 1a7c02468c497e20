"""Yes/no questions read claim by claim, from the model's token probabilities rather than sampled votes.

A question such as "Does The Verge suggest X, while TechCrunch reports Y?" is *yes* only when each of its claims
holds. Each claim (a part joined by "while", "whereas", "as opposed to" or "in contrast to") is read in the few
sentences that bear most on it, from the passages of the source it names (shared.reading.claims). Its attribution
("The Verge article suggests that ...") is taken off: the model is asked whether the sentences support what is
claimed, as a question ("Is it true that ...?"; a question of one claim is asked as it is). The probability it
gives "Yes" as its first token is read from one forward pass, with no sampling (shared.core.model_api.OptionScorer).

A logistic model, fitted per model on the fit half (``python -m benchmarks.fit_yes_no --write``, the ``yes_no``
section of the model's data file), turns the weakest claim's support, the share of claims whose named source is
among the passages and the share of each claim's key words its sentences hold into the probability that the
answer is yes (docs/results/confidence-fit: what it was fitted on, and how well it reads). The verdict is the
likelier answer, its confidence that answer's probability: a verdict near even odds is withheld
(shared.reading.compose).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from shared.core.model_api import GenerationRequest, OptionScorer
from shared.core.text import occurs_in
from shared.reading.claims import ClaimFinding, body_sentences, publisher
from shared.reading.confidence import Calibration
from shared.reading.span_reader import Found, Passage, best_sentences, stems

OPTIONS = ("Yes", "No")
SENTENCES = 4
"""Sentences read per claim (the best by the claim's words; the issue's lever measured 4)."""
SYSTEM = "Answer the question from the sentences alone, with one word: Yes or No."
_CONTRAST = re.compile(r",?\s+(?:while|whereas|as opposed to|in contrast to)\s+", re.IGNORECASE)
"""Words joining two claims. Not "compared to": "less control at 16 compared to the control at 30" is one claim,
whose second half alone claims nothing (on multihop4's report half such splits gave confident wrong "No"s)."""
_ATTRIBUTION = re.compile(
    r"^(?:between\s+)?(?:the\s+)?(?:(?:article|report|review|piece)\s+(?:from|by)\s+)?.+?\s*(?:['’]s\s+)?"
    r"(?:articles?|reports?|review)?\s+(?:suggests?|indicates?|reports?|claims?|impl(?:y|ies)|states?|mentions?"
    r"|discuss(?:es)?|says?|highlights?|argues?)\s+(?:that\s+)?(?P<what>.+)$",
    re.IGNORECASE,
)
_LEAD = re.compile(r"^(?:does|did|do|is|was|are|were|has|have|had|can|could|will|would)\s+", re.IGNORECASE)
_DATE = re.compile(r"published\s+(\d{4}-\d{2}-\d{2})", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:no|not|never|none|nothing|without|neither|nor|cannot)\b|n['’]t\b", re.IGNORECASE)
UNREAD = 0.5
"""The support of a claim no sentence bears on: unknown, not "no"."""
EPSILON = 0.02
"""Supports are read within [EPSILON, 1 - EPSILON]: one token's probability near 0 or 1 is no certainty about the
claim (on the fit half, verdicts at 0.8 and above were right 3 times in 5)."""


@dataclass(frozen=True)
class ClaimScore:
    """One claim, the sentences it was read in, and the model's probability that they support it."""

    claim: str
    sentences: tuple[Found, ...]
    support: float
    held: int
    """The claim's key words its sentences hold."""
    terms: int
    """The claim's key words."""
    sourced: bool = True
    """The source the claim names is among the passages (or it names none of theirs)."""
    negated: bool = False
    """The claim's best sentence says "no", "not", "without"... where the claim does not, or the other way round: a
    small model reads such a sentence as support ("has no dependencies" for "does it have dependencies?")."""

    @property
    def held_share(self) -> float:
        return self.held / self.terms if self.terms else 0.0

    def finding(self) -> ClaimFinding:
        """The claim as a "can't tell" answer shows it: its best sentence and whether the model finds it there."""
        best = self.sentences[0] if self.sentences else None
        held = len(stems(best.sentence) & stems(self.claim)) if best else 0
        return ClaimFinding(self.claim, best, held, self.terms, self.support)


@dataclass(frozen=True)
class VerdictEvidence:
    """What a yes/no verdict's probability is computed from: the inputs of the ``yes_no`` fit."""

    weakest: float
    """The least support of one claim."""
    sourced: float
    """The share of claims whose named source is among the passages."""
    held: float
    """The least share of a claim's key words its sentences hold."""
    negated: float = 0.0
    """The share of claims whose best sentence and the claim differ in negation (:attr:`ClaimScore.negated`)."""

    def features(self) -> dict[str, float]:
        return {
            "weakest_logit": _logit(self.weakest),
            "sourced": self.sourced,
            "held": self.held,
            "negated": self.negated,
        }


@dataclass(frozen=True)
class ClaimVerdict:
    """The claims' scores and the probability that the answer is yes."""

    claims: tuple[ClaimScore, ...]
    evidence: VerdictEvidence
    yes: float

    @property
    def short(self) -> str:
        return "Yes" if self.yes >= 0.5 else "No"

    @property
    def probability(self) -> float:
        """The probability that the verdict (:attr:`short`) is right."""
        return max(self.yes, 1.0 - self.yes)


def contrast_claims(question: str) -> list[str]:
    """The claims of a yes/no question joined by a contrast word (the whole question when it has none), each
    without its leading auxiliary ("Does", "Is", ...) and question mark."""
    parts = [p.strip(" ,?") for p in _CONTRAST.split(question.strip()) if p.strip(" ,?")]
    return [_LEAD.sub("", p, count=1) for p in (parts or [question.strip()])]


def strip_attribution(claim: str) -> str:
    """What ``claim`` says, without who says it ("The Verge article suggests that X" -> "X")."""
    found = _ATTRIBUTION.match(claim)
    return found.group("what") if found else claim


def named_passages(claim: str, passages: Sequence[Passage]) -> list[Passage]:
    """The passages from a source ``claim`` names (by the "Source: NAME" line they carry)."""
    return [p for p in passages if (name := publisher(p)) and occurs_in(name, claim)]


def claim_sentences(claim: str, passages: Sequence[Passage]) -> tuple[Found, ...]:
    """The :data:`SENTENCES` non-header sentences that bear most on ``claim``, from the passages of the sources it
    names (every passage where it names none of theirs)."""
    named = named_passages(claim, passages)
    found = body_sentences(best_sentences(claim, named or passages, limit=SENTENCES * 6), passages)
    return tuple(found[:SENTENCES])


def claim_request(asked: str, sentences: Sequence[Found]) -> GenerationRequest:
    """What the model is asked about one claim (``asked``: as a question): its sentences, each with its source and
    date, then the question."""
    lines = "\n".join(f"- ({_label(f.passage)}) {' '.join(f.sentence.split())}" for f in sentences)
    prompt = f"Sentences:\n{lines or '- (none)'}\n\nQuestion: {asked}"
    return GenerationRequest(prompt=prompt, system=SYSTEM, max_tokens=1)


def as_question(claim: str, question: str, claims: int) -> str:
    """How the model is asked about ``claim``: the question itself where it makes one claim, else whether what the
    claim says (without who says it) is true. A question reads negation better than a claim to support."""
    if claims == 1:
        return question.strip()
    return f"Is it true that {strip_attribution(claim)}?"


def score_claims(question: str, passages: Sequence[Passage], scorer: OptionScorer) -> tuple[ClaimScore, ...]:
    """Each claim of ``question`` scored by ``scorer`` (one forward pass per claim; blocking)."""
    out = []
    publishers = {name for p in passages if (name := publisher(p))}
    claims = contrast_claims(question)
    for claim in claims:
        sentences = claim_sentences(claim, passages)
        asked = claim_request(as_question(claim, question, len(claims)), sentences)
        support = scorer.option_probabilities(asked, OPTIONS)[0] if sentences else UNREAD
        terms = stems(claim)
        held = len(terms & set().union(*(stems(f.sentence) for f in sentences)))
        sourced = not publishers or bool(named_passages(claim, passages))
        negated = bool(sentences) and _negates(sentences[0].sentence) != _negates(claim)
        out.append(ClaimScore(claim, sentences, support, held, len(terms), sourced, negated))
    return tuple(out)


def evidence_of(scores: Sequence[ClaimScore]) -> VerdictEvidence:
    return VerdictEvidence(
        weakest=min((s.support for s in scores), default=0.0),
        sourced=sum(s.sourced for s in scores) / len(scores) if scores else 0.0,
        held=min((s.held_share for s in scores), default=0.0),
        negated=sum(s.negated for s in scores) / len(scores) if scores else 0.0,
    )


def read_verdict(question: str, passages: Sequence[Passage], scorer: OptionScorer, fit: Calibration) -> ClaimVerdict:
    """The yes/no verdict on ``question`` from ``passages`` (blocking: it runs the model once per claim)."""
    scores = score_claims(question, passages, scorer)
    evidence = evidence_of(scores)
    return ClaimVerdict(scores, evidence, fit.probability(evidence))


def _negates(text: str) -> bool:
    return _NEGATION.search(text) is not None


def _label(passage: Passage) -> str:
    name = publisher(passage)
    if not name:
        return passage.source
    date = _DATE.search(passage.text)
    return f"{name}, {date.group(1)}" if date else name


def _logit(p: float) -> float:
    q = min(max(p, EPSILON), 1.0 - EPSILON)
    return math.log(q / (1.0 - q))
