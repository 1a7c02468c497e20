"""Model-free readers of facts a documentation user asks for: a version, a licence, a command.

A question asking which version, which licence or which command is answered with the span of the evidence that
states it, never with the most frequent name of the passages nor a model's paraphrase. Each reader takes the
sentences (or lines) that best match the question's content words and returns the first span of the wanted kind
among them, in a passage that names what the question names. Where the question asks for such a fact and no such
passage states one, the reader says so and the answer declines instead of offering a fragment.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import StrEnum

from shared.core.question_terms import question_terms
from shared.core.text import occurs_in, sentences
from shared.reading.span_reader import Found, Passage, stems


class FactKind(StrEnum):
    VERSION = "version"
    LICENCE = "licence"
    COMMAND = "command"


_WH_FEW = r"^\W*(?:(?:in|on|for|from|with|under)\s+)?(?:what|which)\s+(?:is\s+|are\s+|was\s+)?(?:\w+\s+){0,3}?"
"""The question's first words: what/which, then at most three words before the thing asked for."""
_ASKS_VERSION = re.compile(_WH_FEW + r"versions?\b|\bversion number\b", re.IGNORECASE)
_ASKS_LICENCE = re.compile(
    r"\b(?:what|which)\b[^?]*\blicen[cs]e\b|\blicen[cs]ed under\b|\bunder (?:what|which)\b[^?]*\blicen[cs]e",
    re.IGNORECASE,
)
_ASKS_COMMAND = re.compile(
    _WH_FEW + r"commands?\b|\bhow (?:do|can|should|would) (?:i|you|we|one)\b[^?]*"
    r"\b(?:install|run|start|launch|test|upgrade|serve|invoke)\b",
    re.IGNORECASE,
)
_VERSION = re.compile(r"(?<![\w.])v?(\d+\.\d+(?:\.\d+){0,2}(?:(?:a|b|rc|\.post|\.dev)\d+)?)(?![\w.]*\d)")
_LICENCE = re.compile(
    r"\b(?:Apache(?:[- ]License)?(?:,? (?:version |v)?2\.0|-2\.0)?|MIT|BSD[- ](?:[234][- ]Clause|License)|BSD|"
    r"(?:L|A)?GPL(?:-?v?[23](?:\.0)?(?:-only|-or-later|\+)?)?|MPL[- ]?2\.0|ISC|PSF(?:-2\.0)?|Unlicense|CC0(?:-1\.0)?|"
    r"Python Software Foundation License)\b"
)
_COMMAND = re.compile(
    r"(?:^|`|\$\s?)((?:pip3?|python3?|uv|uvx|conda|pipx|poetry|npm|npx|docker|git|make|pytest|ruff|uvicorn|"
    r"fastapi|typer|rich|tqdm|curl)\b[^`\n]*)",
    re.MULTILINE,
)


def fact_kind(question: str) -> FactKind | None:
    """Which fact ``question`` asks for, if it asks for a version, a licence or a command."""
    if _ASKS_COMMAND.search(question):
        return FactKind.COMMAND
    if _ASKS_LICENCE.search(question):
        return FactKind.LICENCE
    if _ASKS_VERSION.search(question):
        return FactKind.VERSION
    return None


def read_fact(kind: FactKind, question: str, passages: Sequence[Passage]) -> Found | None:
    """The span of ``kind`` in the sentence that best matches ``question``, in a passage that names what the
    question names (if it names anything); None when no such sentence states one."""
    terms = stems(question) - {"versi", "licen", "comma", "which", "what"}
    names = question_terms(question)[0]
    scored: list[tuple[float, int, Found]] = []
    at = 0
    for passage in passages:
        if names and not any(occurs_in(n, passage.text) for n in names):
            continue
        for sentence in sentences(passage.text):
            at += 1
            span = _span(kind, sentence, question)
            if span:
                overlap = len(stems(sentence) & terms) + 0.5 * len(stems(passage.text) & terms) / max(len(terms), 1)
                scored.append((overlap, -at, Found(span, sentence, passage, overlap, at)))
    if not scored:
        return None
    scored.sort(key=lambda t: (t[0], t[1]), reverse=True)
    return scored[0][2]


def _span(kind: FactKind, sentence: str, question: str) -> str:
    if kind == FactKind.VERSION:
        versions = (m.group(1) for m in _VERSION.finditer(sentence))
        return next((v for v in versions if not occurs_in(v, question)), "")
    if kind == FactKind.LICENCE:
        licence = _LICENCE.search(sentence)
        return licence.group(0).strip() if licence else ""
    command = _COMMAND.search(sentence)
    return " ".join(command.group(1).strip().rstrip(".`").split()) if command else ""
