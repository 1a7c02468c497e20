"""Model-free names: the entity candidates of a chunk, and the names and keywords of a question.

A chunk's candidates are capitalised name spans, dates and amounts. They back up a weak SLM: the SLM is shown them
as hints, and when it grounds fewer than a minimum number of entities the remaining candidates are added with the
sentence they occur in as description. A question's names (its capitalised spans and quoted titles) and keywords
are what an edge's retrieval embeds and matches by name; the names are the texts whose vectors travel with a
question (shared/core/query_vectors.py).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from shared.core.text import normalise_name, occurs_in

_CONNECTORS = {"of", "and", "&", "de", "la", "du", "von", "van", "for", "the"}
_STOP = frozenset(
    """
    a according after all also an and are as at be before between but by can could did do does dr during
    each every first for friday from good great had has have he hello her here hey hi his how however i
    if in is it its last many meanwhile monday more most mr mrs ms my new no not now of oh ok okay on
    one or other our please published said saturday she should so some sorry source still sunday sure
    than thank thanks that the their then there these they this those thursday time to today tuesday two
    was we wednesday were what when where which while who why will with would yes yet you your
    """.split()
    # the headings and log levels of documentation ("Usage", "Dependencies", "INFO"): never part of a name
    + """
    critical debug dependencies error example examples features info installation introduction note
    overview requirements tip usage warning
    """.split()
)
_CONTRACTION = re.compile(r"(?:['’](?:ll|re|ve|d|m|s)|n['’]t)$", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z0-9][\w'’.-]*")
_DATE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b(?:January|February|March|April|May|June|July|August|September|"
    r"October|November|December)\s+\d{1,2}(?:,\s*\d{4})?\b"
)
_AMOUNT = re.compile(r"[$€£]\s?\d[\d,.]*(?:\s?(?:million|billion|trillion|bn|m|k))?\b|\b\d[\d,.]*\s?%")


@dataclass(frozen=True)
class Candidate:
    """A span that looks like a named entity."""

    name: str
    kind: str
    count: int


def find_candidates(text: str, limit: int = 20) -> list[Candidate]:
    """Name-like spans of ``text``, most frequent first (ties: first occurrence), at most ``limit``."""
    found: list[tuple[str, str]] = []
    for m in _DATE.finditer(text):
        found.append((m.group(0), "date"))
    for m in _AMOUNT.finditer(text):
        found.append((m.group(0).strip(), "quantity"))
    spans = _capitalised_spans(text)
    inner = {normalise_name(span) for span, initial in spans if not initial}
    # A lone capitalised word that only ever starts a sentence is usually an ordinary word ("Another").
    found.extend(
        (span, "name") for span, initial in spans if not initial or " " in span or normalise_name(span) in inner
    )
    counts: Counter[str] = Counter()
    first: dict[str, tuple[str, str]] = {}
    for name, kind in found:
        key = normalise_name(name)
        if not key or (len(key) < 2 and kind != "quantity") or key in _STOP:
            continue
        counts[key] += 1
        first.setdefault(key, (name, kind))
    order = sorted(counts, key=lambda k: (-counts[k], list(first).index(k)))
    return [Candidate(first[k][0], first[k][1], counts[k]) for k in order[:limit]]


def _capitalised_spans(text: str) -> list[tuple[str, bool]]:
    """Runs of capitalised words, each with whether it starts a sentence or line."""
    spans: list[tuple[str, bool]] = []
    words = [(m.group(0), m.start(), m.end()) for m in _WORD.finditer(text)]
    i = 0
    while i < len(words):
        word = words[i][0].rstrip(".’'")
        if not _is_capital(word) or _stop(word):
            i += 1
            continue
        j = i + 1
        last_good = i
        while j < len(words):
            gap = text[words[j - 1][2] : words[j][1]]
            prev = words[j - 1][0]
            if (
                gap.strip() not in ("", "&")
                or "\n" in gap
                or (_ends_sentence(prev) and prev[:-1].casefold() not in _TITLES)
            ):
                break
            if prev.endswith(("'s", "’s")):
                break  # "YouTube's AI" is two names
            w = words[j][0].rstrip(".’'")
            if _is_capital(w) and _stop(w) and w.casefold() not in _CONNECTORS:
                break  # "Daphne The", "Reranking This", "WatchFiles INFO": the next sentence or a heading
            if _is_capital(w):
                last_good = j
            elif w.casefold() not in _CONNECTORS:
                break
            j += 1
        span = text[words[i][1] : words[last_good][2]].rstrip(".’',")
        if span.endswith(("'s", "’s")):
            span = span[:-2]
        before = text[: words[i][1]].rstrip(" \t\"'“‘(")
        initial = not before or before[-1] in "!?:\n" or (before[-1] == "." and not _title_before(before))
        spans.append((span, initial))
        i = last_good + 1
    return spans


_TITLES = {"dr", "mr", "mrs", "ms", "prof", "st", "sen", "rep", "gov", "gen", "col", "capt", "lt", "sgt", "jr", "sr"}


def _stop(word: str) -> bool:
    """A function word, heading or log level, also as a contraction ("We'll")."""
    return _CONTRACTION.sub("", word).casefold() in _STOP


def _title_before(before: str) -> bool:
    """True when ``before`` ends with an abbreviated title such as "Dr." (not a sentence end)."""
    word = before[:-1].rsplit(None, 1)[-1] if before[:-1].strip() else ""
    return word.casefold() in _TITLES


def _ends_sentence(word: str) -> bool:
    return word.endswith(".") and len(word.rstrip(".")) > 2 and not word.rstrip(".").isupper()


def _is_capital(word: str) -> bool:
    return bool(word) and (word[0].isupper() or (word[0].isdigit() and any(c.isalpha() for c in word)))


_WORD = re.compile(r"[A-Za-z0-9][\w'-]*")
_QUOTED = re.compile(r"(?<!\w)[\"'‘“]([^\"'’”]{3,60})[\"'’”](?!\w)")
_COMMON = frozenset(
    """
    what which who whom whose when where why how does did do is are was were the and that this these those with
    from about article articles report reported according between both after before while their there have has
    had been being into than then them they would could should also more most same other such only over under
    published news suggest mentioned mention yes
    """.split()
)


def question_terms(question: str) -> tuple[list[str], list[str]]:
    """Model-free (names, keywords) of a question: names are capitalised spans and quoted titles."""
    names = [c.name for c in find_candidates(question, limit=12)]
    names += [m.group(1).strip() for m in _QUOTED.finditer(question) if m.group(1).strip() not in names]
    by_key: dict[str, str] = {}
    for name in names:
        by_key.setdefault(normalise_name(name), name)
    names = list(by_key.values())
    words = [w.strip("'’") for w in _WORD.findall(question) if len(w) >= 4 and w.casefold() not in _COMMON]
    return names, list(dict.fromkeys(names + words))


def term_share(terms: list[str], texts: list[str]) -> float:
    """The largest share of ``terms`` (whole words, any case) that one of ``texts`` contains; 0 without terms.
    An edge's probe reports it as its term coverage; the cloud measures it again on the texts the edge returns."""
    wanted = list(dict.fromkeys(t.casefold() for t in terms if t.strip()))
    if not wanted:
        return 0.0
    return max((sum(occurs_in(t, text) for t in wanted) / len(wanted) for text in texts), default=0.0)
