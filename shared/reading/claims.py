"""What bears on each claim of a question: shown instead of a verdict the evidence does not settle.

A question such as "Does The Verge suggest X, while TechCrunch reports Y?" makes two *claims*. Each is matched to
the passages of the source it names (the publisher in a passage's "Source: NAME, published DATE" line, where the
passage has one; else every passage). The best sentence of those passages for the claim is shown with its source
and how many of the claim's key words it holds. A header line (a title or a "Source: ..." line) is never shown.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass

from shared.core.text import occurs_in, truncate_chars
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


@dataclass(frozen=True)
class ClaimFinding:
    """One claim of a question and the sentence that bears most on it (None: no passage shares its words)."""

    claim: str
    found: Found | None
    held: int
    """The claim's key words the sentence holds."""
    terms: int
    """The claim's key words."""
    support: float | None = None
    """The model's probability that the claim's sentences support it (None: not asked)."""


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
        cite = f"[{f.found.passage.number}: {f.found.passage.source}]"
        sentence = truncate_chars(" ".join(f.found.sentence.split()), SENTENCE_CHARS)
        shown = f'"{sentence}" {cite}' if quote else cite
        verdict = "" if f.support is None else f", which {_supports(f.support)}"
        lines.append(f'on "{claim}": {shown}, holding {f.held} of its {f.terms} key words{verdict}')
    return "; ".join(lines)
