"""The claims of a question: what bears on each, and a yes/no verdict read claim by claim.

A question such as "Does The Verge suggest X, while TechCrunch reports Y?" makes two *claims* (parts joined by
"while", "whereas", "as opposed to" or "in contrast to"). Each is matched to the passages of the source it names:
the publisher in a passage's "Source: NAME, published DATE" line, where the passage has one, else every passage.
The best sentence of those passages for a claim is its *finding*, shown with its source and how many of the
claim's key words it holds. A header line (a title or a "Source: ..." line) is never shown.

The verdict is *yes* only when each claim holds. Each claim is read in the few sentences that bear most on it. Its
attribution ("The Verge article suggests that ...") is taken off, and the model is asked whether the sentences
support it, as a question ("Is it true that ...?"; a question of one claim is asked as it is). The probability the
model gives "Yes" as its first token is read from one forward pass, with no sampling
(shared.core.model_api.OptionScorer).

A logistic model, fitted per model on the fit half (``python -m benchmarks.fit_yes_no --write``, the ``yes_no``
section of the model's data file), turns three measurements into the probability that the answer is yes: the
weakest claim's support, the share of claims whose named source is among the passages, and the share of each
claim's key words its sentences hold (docs/results/confidence-fit says what it was fitted on). The verdict is the
likelier answer and its confidence that answer's probability. A verdict near even odds is withheld
(shared.reading.compose).
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from shared.core.model_api import GenerationRequest, OptionScorer
from shared.core.sureness import WITHHOLD_BELOW
from shared.core.text import occurs_in, truncate_chars
from shared.reading.answer import Answer, ClaimFinding, cited, with_support
from shared.reading.confidence import Calibration, Confidence, Evidence, evidence_of
from shared.reading.plan import Reading
from shared.reading.span_reader import Found, Passage, best_sentences, stems

_SPLIT = re.compile(
    r",?\s+(?:while|whereas|as opposed to|in contrast to"
    r"|and(?=\s+(?:the|a|an|in)\s+(?:\S+\s+){0,4}?(?:article|report|review|piece|story|post)\b))\s+",
    re.IGNORECASE,
)
_PUBLISHER = re.compile(r"(?:^|\s)Source:\s*(?P<name>[^\n,]{2,80}?)\s*,\s*published\b", re.IGNORECASE)
_HEADER = re.compile(r"(?:^|\n)\s*(?:source|title|published|author|date)\s*:", re.IGNORECASE)
_HEADER_RUN = re.compile(
    r"^.*?\bSource:\s*[^\n,]{2,80}?,\s*published\s+\d{4}-\d{2}-\d{2}\s*", re.IGNORECASE | re.DOTALL
)
"""A title and its "Source: NAME, published DATE" line read as the start of the first sentence."""
CLAIM_CHARS = 90
SENTENCE_CHARS = 200
MAX_CLAIMS = 3


def split_claims(question: str) -> list[str]:
    """The claims of ``question``: its parts joined by "while", "whereas", "as opposed to", "in contrast to" or
    "and the ... article/report" (one claim when it has none)."""
    parts = [p.strip(" ,?") for p in _SPLIT.split(question.strip()) if p and p.strip(" ,?")]
    return parts[:MAX_CLAIMS] if len(parts) > 1 else [question.strip().rstrip("?")]


def publisher(passage: Passage) -> str:
    """The source a passage names in its "Source: NAME, published DATE" line ("" when it has none)."""
    found = _PUBLISHER.search(passage.text)
    return found.group("name").strip() if found else ""


def is_header(sentence: str) -> bool:
    """A title or "Source: ..., published ..." line rather than a sentence of the text."""
    return _HEADER.search(sentence) is not None


def body_sentences(found: Sequence[Found], passages: Sequence[Passage]) -> list[Found]:
    """``found`` without titles and "Source: ..." lines: a sentence that begins with them keeps only what follows
    them, and one that is nothing else is left out."""
    titles = _titles(passages)
    out = []
    for f in found:
        body = _HEADER_RUN.sub("", f.sentence, count=1).strip()
        if body and not is_header(body) and body not in titles:
            out.append(f if body == f.sentence.strip() else dataclasses.replace(f, sentence=body))
    return out


def findings(question: str, passages: Sequence[Passage]) -> list[ClaimFinding]:
    """For each claim of ``question``, the best non-header sentence of the passages from the source it names."""
    out = []
    for claim in split_claims(question):
        named = [p for p in passages if (name := publisher(p)) and occurs_in(name, claim)]
        candidates = body_sentences(best_sentences(claim, named or passages, limit=24), passages)
        best = candidates[0] if candidates else None
        terms = stems(claim)
        held = len(stems(best.sentence) & terms) if best else 0
        out.append(ClaimFinding(claim, best, held, len(terms)))
    return out


def _supports(p: float) -> str:
    """How a claim's support reads: whether the model finds the claim in its sentences, and how surely."""
    if p >= 0.5:
        return f"supports it ({p:.0%} by the model)"
    return f"does not support it ({1 - p:.0%} by the model)"


def _titles(passages: Sequence[Passage]) -> set[str]:
    """Each passage's first line where a "Source:" line follows it (a title)."""
    titles = set()
    for p in passages:
        head, _, rest = p.text.partition("\n")
        if _HEADER.match(rest.lstrip("\n")):
            titles.add(head.strip())
    return titles


def describe(found: Sequence[ClaimFinding], quote: bool = True) -> str:
    """The findings as a person reads them: per claim, its best sentence (or only its source where the reader may
    not be quoted the evidence) and how many of its key words that holds."""
    lines = []
    for f in found:
        claim = truncate_chars(f.claim, CLAIM_CHARS)
        if f.found is None:
            lines.append(f'on "{claim}": no passage shares its words')
            continue
        cite = f.found.passage.citation
        sentence = truncate_chars(" ".join(f.found.sentence.split()), SENTENCE_CHARS)
        shown = f'"{sentence}" {cite}' if quote else cite
        verdict = "" if f.support is None else f", which {_supports(f.support)}"
        lines.append(f'on "{claim}": {shown}, holding {f.held} of its {f.terms} key words{verdict}')
    return "; ".join(lines)


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


def verdict_evidence(scores: Sequence[ClaimScore]) -> VerdictEvidence:
    return VerdictEvidence(
        weakest=min((s.support for s in scores), default=0.0),
        sourced=sum(s.sourced for s in scores) / len(scores) if scores else 0.0,
        held=min((s.held_share for s in scores), default=0.0),
        negated=sum(s.negated for s in scores) / len(scores) if scores else 0.0,
    )


def read_verdict(question: str, passages: Sequence[Passage], scorer: OptionScorer, fit: Calibration) -> ClaimVerdict:
    """The yes/no verdict on ``question`` from ``passages`` (blocking: it runs the model once per claim)."""
    scores = score_claims(question, passages, scorer)
    evidence = verdict_evidence(scores)
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


UNSETTLED = "Can't tell"
"""The head of an answer whose two-way verdict is withheld: what bears on each claim follows."""


def verdict_answer(
    reading: Reading, verdict: ClaimVerdict, quote: bool = True, withhold_below: float = WITHHOLD_BELOW
) -> Answer:
    """The shown answer to a yes/no question read claim by claim: its verdict with the first claim's best
    sentence, its confidence the verdict's own probability. Below ``withhold_below`` it is can't tell, with each
    claim's best sentence and whether the model finds the claim there."""
    texts = [p.text for p in reading.passages]
    evidence = evidence_of(reading.question, reading.shape.shape.value, "claims", verdict.short, texts, [])
    seen = [s.finding() for s in verdict.claims]
    if verdict.probability < withhold_below:
        return unsettled(reading, quote, evidence, verdict.short, seen)
    support = seen[0].found if seen else None
    shown = with_support(verdict.short, support, "claims") if quote else cited(verdict.short, support, "claims")
    return dataclasses.replace(
        shown, confidence=Confidence.of(verdict.probability), evidence=evidence, claims=tuple(seen)
    )


def unsettled(
    reading: Reading, quote: bool, evidence: Evidence, withheld: str, seen: Sequence[ClaimFinding] | None = None
) -> Answer:
    """No verdict: what bears on each claim of the question, with its source (the evidence of the withheld
    verdict is kept for the trace)."""
    seen = findings(reading.question, reading.passages) if seen is None else seen
    found = describe(seen, quote)
    shown = f" What the sources say {found}." if found else ""
    return Answer(f"{UNSETTLED}.{shown}", "", "unsettled", evidence=evidence, withheld=withheld, claims=tuple(seen))
